"""Helpers for the tool, closure, suggestion and memory tests: a demo scene and a caller."""

from __future__ import annotations

import copy
from typing import Any

from engine.gm.scene import Scene
from engine.gm.state import log_event
from engine.gm.tools import ToolCall, ToolOutcome, execute
from engine.gm.words import lexicon
from engine.world import WorldDefinition, load_world
from tests.engine.gm.worlds import demo_data, demo_world, new_state, scene_for


def demo_scene(character: str = "ren", language: str = "en", **changes: Any) -> Scene:
    """A fresh scene of the demo world (Brackenford) for ``character``; ``changes`` replace
    keys of the gameMaster block."""
    world = demo_world() if not changes else world_with(**changes)
    return scene_for(world, new_state(world), character, language)


def world_with(**changes: Any) -> WorldDefinition:
    data = copy.deepcopy(demo_data())
    data["gameMaster"].update(changes)
    return load_world(data)


def call(scene: Scene, name: str, **arguments: Any) -> ToolOutcome:
    return execute(ToolCall(f"t-{name}", name, arguments), scene)


def snapshot(scene: Scene) -> dict[str, Any]:
    return scene.state.model_dump(mode="json")


def say(scene: Scene, text: str) -> None:
    """Log the player's words as play.py does at the start of a master turn (the turn opens)."""
    lex = lexicon("en")
    log_event(
        scene.state,
        "action",
        scene.character_id,
        scene.me.location,
        lex.t("ev_action", actor=scene.name, text=text),
        seen_by=scene.witnesses(),
    )
    scene._npcs.clear()
