"""Worlds and helpers shared by the game-master tests."""

from __future__ import annotations

import asyncio
import json
from functools import cache
from pathlib import Path
from typing import Any

from engine.gm.play import GMAction, GMActionResult, play_gm_action
from engine.gm.scene import Scene
from engine.gm.words import lexicon
from engine.session import SessionState
from engine.world import WorldDefinition, load_world

ROOT = Path(__file__).resolve().parents[3]
DEMO_PATH = ROOT / "studio" / "fixtures" / "gm_demo_world.json"


@cache
def _demo_text() -> str:
    return DEMO_PATH.read_text(encoding="utf-8")


def demo_data() -> dict[str, Any]:
    """A fresh copy each call: a test that edits the demo must not edit it for the next test."""
    return dict(json.loads(_demo_text()))


def demo_world() -> WorldDefinition:
    return load_world(demo_data())


def tiny_gm() -> dict[str, Any]:
    """Two rooms and a yard: the smallest world with every kind of thing."""
    return {
        "locations": [
            {
                "id": "hall",
                "name": "Great Hall",
                "aliases": ["hall", "salon", "大厅"],
                "description": "Tall windows.",
                "exits": [
                    {"direction": "north", "to": "yard"},
                    {"direction": "east", "to": "vault", "locked": True},
                ],
                "points": [{"id": "table", "name": "the long table", "aliases": ["table"]}],
                "hiddenPoints": [
                    {
                        "id": "panel",
                        "name": "a sliding panel",
                        "description": "HIDDEN-PANEL",
                        "foundBy": {"check": "investigation", "dc": 10},
                    }
                ],
            },
            {
                "id": "yard",
                "name": "Stable Yard",
                "aliases": ["yard", "patio", "院子"],
                "exits": [{"direction": "south", "to": "hall"}],
            },
            {"id": "vault", "name": "Vault", "exits": [{"direction": "west", "to": "hall"}]},
        ],
        "items": [
            {
                "id": "rope",
                "name": "coil of rope",
                "aliases": ["rope", "cuerda", "绳子"],
                "at": {"location": "hall", "point": "table"},
            },
            {"id": "red-key", "name": "red key", "at": {"location": "hall"}},
            {"id": "blue-key", "name": "blue key", "at": {"location": "hall"}},
            {"id": "coin", "name": "gold coin", "at": {"location": "hall", "point": "panel"}},
            {"id": "sword", "name": "sword", "damage": "1d8", "at": {"character": "kai"}},
            {"id": "purse", "name": "fat purse", "at": {"npc": "guard"}},
        ],
        "npcs": [
            {
                "id": "guard",
                "name": "Bors",
                "trade": "guard",
                "location": "hall",
                "secret": {"text": "SECRET-BORS", "tellsTo": "his captain"},
                "disclosures": {"stranger": "The vault is locked.", "friend": "FRIEND-ONLY"},
            },
        ],
        "characters": [
            {
                "id": "kai",
                "name": "Kai",
                "location": "hall",
                "inHand": "sword",
                "full": {"class": "fighter", "secrets": ["SECRET-KAI"]},
            },
            {"id": "lin", "name": "Lin", "location": "yard"},
        ],
    }


def tiny_world(**changes: Any) -> WorldDefinition:
    gm = tiny_gm()
    gm.update(changes)
    return load_world({"name": "Tiny", "language": "en", "gameMaster": gm})


def new_state(world: WorldDefinition) -> SessionState:
    return SessionState.initial(world)


def play(
    world: WorldDefinition,
    state: SessionState,
    action: GMAction,
    character: str = "kai",
    **options: Any,
) -> GMActionResult:
    options.setdefault("rng_seed", 3)
    return asyncio.run(play_gm_action(world, state, character, action, **options))


def play_all(
    world: WorldDefinition, actions: list[GMAction], character: str = "kai", **options: Any
) -> list[GMActionResult]:
    state = new_state(world)
    out = []
    for action in actions:
        result = play(world, state, action, character, **options)
        state = result.state
        out.append(result)
    return out


def scene_for(
    world: WorldDefinition, state: SessionState, character: str, language: str = "en"
) -> Scene:
    from engine.gm.play import ensure_gm_state

    gm_state = ensure_gm_state(world, state, 1)
    assert world.game_master is not None
    return Scene(world.game_master, gm_state, character, lexicon(language), lexicon("en"))
