"""The game-master editor (issue 10 §1): one module per noun group, routes in ``gm_urls``."""

from __future__ import annotations

from django.urls import URLPattern, path

from studio.views.gamemaster import minds, overview, records
from studio.views.gamemaster.nouns import NOUNS, Noun


def noun_urls(prefix: str, noun: Noun) -> list[URLPattern]:
    base, k, name = f"{prefix}gm/{noun.slug}/", {"noun": noun}, f"gm_{noun.slug}"
    return [
        path(base, records.record_list, k, name=name),
        path(f"{base}new/", records.record_create, k, name=f"{name}_new"),
        path(f"{base}edit/<str:ref>/", records.record_edit, k, name=f"{name}_edit"),
        path(f"{base}delete/<str:ref>/", records.record_delete, k, name=f"{name}_delete"),
    ]


def gm_urls(prefix: str) -> list[URLPattern]:
    """Every route of the editor, under ``prefix`` (the world's ``w/<int:world_id>/``)."""
    patterns = [
        path(f"{prefix}gm/", overview.gm_overview, name="gm"),
        path(f"{prefix}gm/enable/", overview.gm_enable, name="gm_enable"),
        path(f"{prefix}gm/disable/", overview.gm_disable, name="gm_disable"),
        path(f"{prefix}gm/json/", overview.gm_json, name="gm_json"),
        path(f"{prefix}gm/minds/", minds.gm_minds, name="gm_minds"),
        path(f"{prefix}gm/npcs/<str:ref>/mind/", minds.gm_npc_mind, name="gm_npc_mind"),
    ]
    for noun in NOUNS:
        patterns += noun_urls(prefix, noun)
    return patterns
