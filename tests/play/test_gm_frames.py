"""The frames after a game-master reply (play.gm.turn_frames): the Story Director's
out-of-character line reaches the player as a note of its own (issue 12 §1), never inside the
story, and a turn without one adds none."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from django.utils import translation

from engine.gm.result import GMActionResult
from engine.session import SessionState
from engine.world import load_world
from play.gm import page_language, scene_frames, turn_frames

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


# --- the scene bar in the session's language (issue 33 §3) ------------------------------------


def scene_in(language: str | None) -> dict[str, Any]:
    world, played = result({})
    if language is not None:
        played.gm.language = language  # the narration's language: the action was read in it
    [scene] = [f for f in turn_frames(world, played, "ren") if f["type"] == "scene"]
    return scene


@pytest.mark.parametrize(
    ("language", "place", "ways", "points"),
    [
        (
            "en",
            "The Wayfarer's Rest",
            [("south", "Market Square"), ("down", "The Wayfarer's Cellar")],
            ["the bar", "the hearth"],
        ),
        (
            "es",
            "La Posada del Caminante",
            [("sur", "Plaza del Mercado"), ("abajo", "La Bodega del Caminante")],
            ["la barra", "la chimenea"],
        ),
        (
            "zh",
            "旅人客栈",
            [("南", "集市广场"), ("下", "客栈地窖")],
            ["吧台", "壁炉"],
        ),
    ],
)
def test_the_scene_bar_speaks_the_narrations_language(language, place, ways, points):
    scene = scene_in(language)
    assert scene["place"] == {"id": "the-wayfarer", "name": place}
    assert [(w["label"], w["name"]) for w in scene["ways"]] == ways
    assert [w["direction"] for w in scene["ways"]] == ["south", "down"]  # ids stay ids
    assert [p["name"] for p in scene["points"]] == points
    assert scene["character"]["name"] == "Ren Ashby"


def test_outside_a_turn_the_scene_bar_speaks_the_pages_language_when_the_world_does():
    world, played = result({})
    with translation.override("es"):
        [scene] = scene_frames(world, played.state, "ren", page_language(world))
    assert scene["place"]["name"] == "La Posada del Caminante"
    assert scene["ways"][0]["label"] == "sur" and scene["time_of_day"] == "la mañana"
    with translation.override("zh-hans"):
        assert page_language(world) == "zh-hans"
    with translation.override("fr"):
        assert page_language(world) == "en"  # a language the world does not speak: its own


def test_a_world_without_translations_keeps_its_own_words_in_the_scene_bar():
    data = without_translations(demo_json())
    world = load_world(data)
    state = SessionState.initial(world)
    with translation.override("es"):
        [scene] = scene_frames(world, state, "ren", page_language(world))
    assert scene["place"]["name"] == "The Wayfarer's Rest"
    assert scene["ways"][0]["label"] == "south"  # the world's language: one voice
    [spanish] = scene_frames(world, state, "ren", "es")
    assert (spanish["ways"][0]["label"], spanish["ways"][0]["name"]) == ("sur", "Market Square")


def demo_json() -> dict[str, Any]:
    with open(GM_DEMO, encoding="utf-8") as source:
        return dict(json.load(source))


def without_translations(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_translations(v) for k, v in value.items() if k != "translations"}
    return [without_translations(v) for v in value] if isinstance(value, list) else value
