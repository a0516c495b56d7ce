"""The world-test routes, mounted under a world by studio.urls (names ``studio:world_test…``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from studio.worldtests import views


def world_test_urls(world_prefix: str) -> list[URLPattern]:
    base = f"{world_prefix}tests/"
    return [
        path(base, views.test_list, name="world_tests"),
        path(f"{base}new/", views.test_edit, name="world_test_new"),
        path(f"{base}<int:pk>/", views.test_edit, name="world_test"),
        path(f"{base}<int:pk>/delete/", views.test_delete, name="world_test_delete"),
        path(f"{base}editor/", views.test_editor_switch, name="world_test_editor"),
        path(f"{base}run/", views.test_run, name="world_test_run"),
        path(f"{base}runs/<int:run_id>/", views.run_status, name="world_test_run_status"),
        path(f"{base}export.json", views.suite_export, name="world_tests_export"),
    ]
