"""The scene context in the studio's prompt preview (issue 10 §3; seed 001 "El contexto: poco y
justo"): what the master would get for a chosen character at a chosen location.

``engine.gm.perception`` builds it, and only it reads the block: secrets, hidden points, the GM
notes and other characters' full sheets never reach the text, so the preview cannot show them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.gm.perception import perceive, scene_context
from engine.gm.state import initial_gm_state
from studio.gamemaster import load_game_master
from studio.models import World


@dataclass
class ScenePreview:
    """The scene context the master would get (issue 10 §3): only what the character perceives."""

    character: str
    location: str | None  # None: where the character starts
    text: str


def scene_choices(world: World) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The characters and locations of the world's gameMaster block, for the scene pickers."""
    gm = load_game_master(world)
    if gm is None:
        return [], []
    return [(c.id, c.name) for c in gm.characters], [(x.id, x.name) for x in gm.locations]


def scene_preview(
    world: World, character: str | None, location: str | None, values: Mapping[str, Any]
) -> ScenePreview | None:
    """The scene for ``character`` at ``location`` at the start of play (the first character
    and its own place when they are blank or unknown); None without a gameMaster block or a
    character. ``engine.gm.perception`` never lets a secret or a hidden point into the text."""
    gm = load_game_master(world)
    if gm is None or not gm.characters:
        return None
    who = character if character in gm.characters_by_id else gm.characters[0].id
    where = location if location in gm.locations_by_id else None
    view = perceive(gm, initial_gm_state(gm), who, location=where, values=values)
    return ScenePreview(who, where, scene_context(view))
