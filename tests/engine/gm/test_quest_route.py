"""The demo's main quest played offline to its end (issue 33 "Done when"), and what it needs of
the engine: a lock opened by the key carried, a bare "entro"/"enter", and a turn narrated in
the player's language rather than the world's."""

from __future__ import annotations

import asyncio

import pytest

from engine.gm.lint import game_master_errors
from engine.gm.moves import classify
from engine.gm.play import GMActionResult
from engine.llm.offline import OfflineProvider
from engine.session import SessionState
from engine.turn import PlayerAction, Turn
from engine.world import WorldDefinition
from tests.conftest import FakeClock, SeededRng
from tests.engine.gm.worlds import demo_world, new_state, play, scene_for, tiny_world

ROUTES = {
    "en": ["take the iron key", "go down", "take the silver chalice", "go up", "go south",
           "go west", "give the chalice to the priest"],
    "es": ["cojo la llave de hierro", "bajo", "cojo el cáliz de plata", "subo", "voy al sur",
           "voy al oeste", "le doy el cáliz al cura"],
    "zh": ["拿起铁钥匙", "下去", "拿起银圣杯", "上去", "往南走", "往西走", "把圣杯给神父"],
}  # fmt: skip


def _found(world: WorldDefinition, *points: str) -> SessionState:
    """A new session whose Ren has found the hidden points (a search is a hidden roll)."""
    first = play(world, new_state(world), "look", "ren").state
    assert first.gm is not None
    first.gm.characters["ren"].discovered.extend(points)
    return first


def _route(language: str) -> list[GMActionResult]:
    world = demo_world()
    state = _found(world, "the-wayfarer:trapdoor", "cellar:smuggled-crates")
    out = []
    for action in ROUTES[language]:
        result = play(world, state, action, "ren", language=language)
        state = result.state
        out.append(result)
    return out


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_the_main_quest_is_finished_offline_at_no_model_call(language):
    results = _route(language)
    assert [r.kind for r in results] == ["engine"] * len(results)
    assert sum(r.model_calls for r in results) == 0
    last = results[-1]
    assert last.changes["completed"] == ["find-chalice"]
    assert last.changes["money"] == {"from": 3, "to": 23}


def test_going_through_a_locked_way_with_its_key_opens_it():
    world = demo_world()
    state = _found(world, "the-wayfarer:trapdoor")
    taken = play(world, state, "take the iron key", "ren")
    down = play(world, taken.state, "go down", "ren")
    assert down.kind == "engine" and down.location == "cellar"
    assert down.narration.startswith("You unlock the way down with the iron key. You go down")
    assert down.changes["unlocked"] == ["the-wayfarer>down"]


def test_a_locked_way_without_its_key_stays_locked():
    world = demo_world()
    down = play(world, new_state(world), "go down", "ren")
    assert down.kind == "refused" and "locked" in down.narration


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("unlock the trapdoor", "en"),
        ("I open the trapdoor with the key", "en"),
        ("abro la trampilla con la llave", "es"),
        ("uso la llave", "es"),
        ("用钥匙打开活板门", "zh"),
    ],
)
def test_saying_so_opens_the_lock_with_the_key_carried_at_no_cost(text, language):
    world = demo_world()
    state = _found(world, "the-wayfarer:trapdoor")
    taken = play(world, state, "take the iron key", "ren")
    opened = play(world, taken.state, text, "ren", language=language)
    assert (opened.kind, opened.model_calls) == ("engine", 0)
    assert opened.changes == {"unlocked": ["the-wayfarer>down"]}
    assert opened.location == "the-wayfarer"


def test_without_the_key_unlocking_stays_a_check_of_the_offline_master():
    world = demo_world()
    result = play(world, new_state(world), "unlock the trapdoor", "ren")
    assert result.kind == "master" and result.pending is not None


def test_the_linter_names_a_key_that_is_no_item():
    gm = tiny_world().game_master
    assert gm is not None
    hall = gm.locations[0]
    locked = hall.exits[1].model_copy(update={"key": "no-such-key"})
    hall = hall.model_copy(update={"exits": [hall.exits[0], locked]})
    gm = gm.model_copy(update={"locations": [hall, *gm.locations[1:]]})
    assert any("unknown item 'no-such-key'" in e for e in game_master_errors(gm))


@pytest.mark.parametrize(("text", "language"), [("entro", "es"), ("enter", "en"), ("进去", "zh")])
def test_a_bare_enter_takes_the_only_way_in(text, language):
    world = demo_world()
    state = play(world, new_state(world), "go south", "ren").state
    result = play(world, state, text, "ren", language=language)
    assert (result.kind, result.location) == ("engine", "store")


def test_entro_followed_by_a_place_still_names_it():
    world = demo_world()
    state = play(world, new_state(world), "go south", "ren").state
    move = classify("entro en la tienda", "es", scene_for(world, state, "ren", "es"))
    assert move is not None and (move.kind, move.target) == ("go", "tienda")


def _turn(world: WorldDefinition, action: PlayerAction, language: str | None) -> Turn:
    return Turn(
        world,
        new_state(world),
        [],
        action,
        OfflineProvider("en"),
        clock=FakeClock(),
        rng=SeededRng(),
        seed=5,
        character_id="ren",
        language=language,
    )


SPOKEN = {"es": "Plaza del Mercado", "zh": "集市广场", None: "Market Square"}


@pytest.mark.parametrize("language", ["es", "zh", None])
def test_a_click_is_narrated_in_the_players_language_not_the_worlds(language):
    click = PlayerAction("action", action_id="click:location:square")
    result = asyncio.run(_turn(demo_world(), click, language).run())
    assert SPOKEN[language] in result.text
    assert result.gm is not None and result.gm.language == (language or "en")


@pytest.mark.parametrize("language", ["es", "zh", None])
def test_the_master_answers_in_the_players_language(language):
    hum = PlayerAction("message", {"es": "silbo", "zh": "我哼歌"}.get(language or "", "I hum"))
    result = asyncio.run(_turn(demo_world(), hum, language).run())
    assert result.gm is not None and result.gm.language == (language or "en")
    english = {"You", "Nothing"}
    assert language is None or not any(word in result.text for word in english)


@pytest.mark.parametrize(
    ("language", "text"), [("es", "hablo con la posadera"), ("zh", "和老板娘说话")]
)
def test_an_npc_answers_in_the_players_language(language, text):
    talk = PlayerAction("message", text)
    result = asyncio.run(_turn(demo_world(), talk, language).run())
    assert result.text.startswith({"es": "Hilda Brant: «", "zh": "希尔达·布兰特"}[language])
    assert "Is that right" not in result.text


def test_the_spanish_way_down_needs_no_article():
    world = demo_world()
    state = _found(world, "the-wayfarer:trapdoor")
    taken = play(world, state, "cojo la llave de hierro", "ren", language="es")
    down = play(world, taken.state, "bajo", "ren", language="es")
    assert "Vas abajo, a La Bodega del Caminante." in down.narration
    assert "el abajo" not in down.narration


def test_the_spanish_hand_in_names_the_item_with_its_article():
    last = _route("es")[-1]
    assert last.narration.startswith("Le das el cáliz de plata al cura.")
