"""The frames after a game-master reply (play.gm.turn_frames): the Story Director's
out-of-character line reaches the player as a note of its own (issue 12 §1), never inside the
story, and a turn without one adds none."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from engine.gm.result import GMActionResult
from engine.session import SessionState
from engine.world import load_world
from play.gm import turn_frames

GM_DEMO = "studio/fixtures/gm_demo_world.json"


def result(changes: dict[str, Any]) -> Any:
    with open(GM_DEMO, encoding="utf-8") as source:
        world = load_world(json.load(source))
    state = SessionState.initial(world)
    played = GMActionResult(
        input="wait",
        kind="master",
        narration="Time passes.",
        state=state,
        location="the-wayfarer",
        context="",
        changes=changes,
    )
    return world, SimpleNamespace(gm=played, state=state)


def test_the_story_directors_line_for_the_player_comes_as_a_note_before_the_scene():
    world, played = result({"directors": {"ooc": "This scene can end whenever you like."}})
    frames = turn_frames(world, played, "ren")
    assert frames[0] == {
        "type": "notification",
        "message": "This scene can end whenever you like.",
        "style": "ooc",
    }
    assert frames[1]["type"] == "scene"


def test_no_line_no_note():
    world, played = result({"directors": {"ooc": "  "}})
    assert [f["type"] for f in turn_frames(world, played, "ren")] == ["scene"]
    world, played = result({})
    assert [f["type"] for f in turn_frames(world, played, "ren")] == ["scene"]
