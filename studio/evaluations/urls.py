"""The evaluation routes, mounted under a world by studio.urls (names ``studio:evaluation…``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from studio.evaluations import views


def evaluation_urls(world_prefix: str) -> list[URLPattern]:
    base = f"{world_prefix}evaluations/"
    run = f"{base}<int:evaluation_id>/"
    return [
        path(base, views.evaluation_list, name="evaluations"),
        path(run, views.evaluation_detail, name="evaluation"),
        path(f"{run}progress/", views.evaluation_progress, name="evaluation_progress"),
        path(f"{run}cancel/", views.evaluation_cancel, name="evaluation_cancel"),
        path(f"{run}games/<int:game_id>/", views.evaluation_game, name="evaluation_game"),
        path(f"{run}export.<str:fmt>", views.evaluation_export, name="evaluation_export"),
        path(f"{run}plots/<str:name>.svg", views.evaluation_plot, name="evaluation_plot"),
    ]
