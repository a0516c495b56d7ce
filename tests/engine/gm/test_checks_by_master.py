"""Only the master decides what needs a check (issue 33 §2; seed 001 "El máster sí: Elige qué
prueba pide cada acción"): with a live master a risky act reaches it and the engine answers no
"Roll Persuasion (DC 15)" of its own; offline, the offline master reads the act (as players
write it: "I try to pick the moneylender's pocket", "le robo la bolsa a Greta", "我偷格蕾塔的钱包")
and asks for the roll; a theft is never taken for talk."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine.gm.play import ensure_gm_state
from engine.gm.risk import classify_risky, deed
from engine.gm.talk import talk_target
from engine.llm.base import ChatRequest, Chunk, Usage
from engine.session import SessionState, ToolCall
from tests.engine.gm.talk_worlds import village
from tests.engine.gm.test_cli import run_cli, write
from tests.engine.gm.toolkit import say
from tests.engine.gm.worlds import DEMO_PATH, demo_world, new_state, play, scene_for


class Master:
    """A live-like master that closes every turn with log_event, and keeps its requests."""

    name = "live-like"
    model = "live-like-1"

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        close = ToolCall("c1", "log_event", {"narration": "The master weighs it."})
        yield Chunk(tool_calls=[close])
        yield Chunk(usage=Usage(input_tokens=10, output_tokens=4, cost=0.001))


RISKY = [
    "I try to persuade the innkeeper",
    "I try to persuade Hilda to give me a room",
    "climb the bar",
    "I steal Hilda's purse",
    "attack Hilda",
    "search the room",
    "I sneak past Hilda",
]


@pytest.mark.parametrize("text", RISKY)
def test_live_a_risky_act_goes_to_the_master_and_the_engine_decides_no_check(text):
    master = Master()
    world = demo_world()
    result = play(world, new_state(world), text, "ren", provider=master)
    assert (result.kind, result.model_calls, len(master.requests)) == ("master", 1, 1)
    assert result.narration == "The master weighs it."
    assert result.pending is None and "pending" not in result.changes and result.rolls == []
    assert master.requests[0].player_text == text


def test_live_the_masters_check_is_the_one_that_waits_for_the_roll(tmp_path):
    """Through the CLI with scripted model turns: the master asks request_skill_check, the
    engine sets that check, and the roll goes back to the master for its consequence."""
    ask = {
        "name": "request_skill_check",
        "arguments": {"check": "persuasion", "target": "hilda", "purpose": "persuade"},
    }
    replies = [
        {"tool_calls": [ask]},
        {"tool_calls": [{"name": "log_event", "arguments": {"narration": "Hilda listens."}}]},
        {"tool_calls": [{"name": "log_event", "arguments": {"narration": "Hilda shrugs."}}]},
    ]
    actions: list[Any] = ["I try to persuade Hilda to lower the price", {"roll": True}]
    script = write(tmp_path, "s.json", {"character": "ren", "actions": actions})
    done = run_cli(
        "--world",
        str(DEMO_PATH),
        "--script",
        script,
        "--seed",
        "5",
        "--replies",
        write(tmp_path, "r.json", replies),
    )
    assert done.returncode == 0, done.stderr
    asked, rolled = [json.loads(line) for line in done.stdout.splitlines()]
    assert [c["name"] for c in asked["tool_calls"]] == ["request_skill_check", "log_event"]
    assert asked["tool_calls"][0]["ok"] and asked["model_calls"] == 2
    assert asked["changes"]["pending"]["check"] == "persuasion"
    assert asked["changes"]["pending"]["dc"] == 15  # the engine's DC for her trust
    assert "That is risky" not in asked["narration"] and asked["narration"] == "Hilda listens."
    assert rolled["rolls"][0]["dc"] == 15 and rolled["narration"].endswith("Hilda shrugs.")


def test_offline_the_offline_master_asks_for_the_roll_at_no_cost():
    world = demo_world()
    result = play(world, new_state(world), "I try to persuade Hilda", "ren")
    assert (result.kind, result.model_calls, result.usage.cost) == ("master", 1, 0)
    assert result.narration == "That is risky. Roll Persuasion (DC 15)."
    assert result.pending is not None and result.pending.target == "hilda"


# --- theft as players write it ------------------------------------------------------------------

THEFTS = [
    ("en", "I try to pick the moneylender's pocket"),
    ("en", "I steal Greta's purse"),
    ("en", "pick Greta's pocket"),
    ("en", "I pickpocket the moneylender"),
    ("en", "I try to steal the moneylender's purse"),
    ("en", "steal from Greta"),
    ("es", "le robo la bolsa a Greta"),
    ("es", "intento robarle el monedero a la prestamista"),
    ("es", "robo a Greta"),
    ("es", "le vacío los bolsillos a la prestamista"),
    ("es", "intento meterle la mano en el bolsillo a Greta"),
    ("zh", "我偷格蕾塔的钱包"),
    ("zh", "我想扒放债人的口袋"),
    ("zh", "偷放债人的钱袋"),
    ("zh", "我试着掏格蕾塔的口袋"),
]


def at_the_square(language: str) -> tuple[Any, SessionState]:
    world = village(language)
    state = SessionState.initial(world)
    ensure_gm_state(world, state, 3).characters["ren"].location = "square"
    return world, state


@pytest.mark.parametrize(("language", "text"), THEFTS)
def test_offline_a_theft_of_someone_is_a_sleight_of_hand_check_against_her(language, text):
    world, state = at_the_square(language)
    result = play(world, state, text, "ren")
    assert (result.kind, result.model_calls) == ("master", 1), result.narration
    assert result.pending is not None
    assert (result.pending.verb, result.pending.check) == ("steal", "sleight-of-hand")
    assert result.pending.target == "greta"
    assert not [e for e in result.events if e.kind == "talk"]  # a theft is no talk


@pytest.mark.parametrize(("language", "text"), THEFTS)
def test_a_theft_is_a_deed_that_talks_to_nobody(language, text):
    world, state = at_the_square(language)
    scene = scene_for(world, state, "ren", language)
    say(scene, text)
    assert deed(text, language)
    assert talk_target(scene, text, scene.state.events[-1].id) is None


def test_the_thing_named_is_the_thing_stolen():
    world = demo_world()
    state = new_state(world)
    ensure_gm_state(world, state, 3).characters["ren"].location = "square"
    result = play(world, state, "I try to steal the ring from Greta", "ren")
    assert result.pending is not None
    assert (result.pending.target, result.pending.item) == ("greta", "silver-ring")
    purse = play(world, state, "I steal Greta's purse", "ren")
    assert purse.pending is not None and purse.pending.item is None  # she has no purse


def test_a_theft_with_several_people_about_and_nobody_named_asks_whom_from():
    world = demo_world()
    state = new_state(world)
    ensure_gm_state(world, state, 3)
    waited = play(world, state, "wait until evening", "ren")
    asked = play(world, waited.state, "I pick a pocket", "ren")
    assert asked.kind == "ask" and asked.model_calls == 0
    assert asked.narration.startswith("Whom do you want to steal from? Here:")


def test_words_that_persuade_stay_talk_and_a_quoted_line_is_words():
    assert not deed("I persuade Hilda to lower the price", "en")
    assert classify_risky("I try to pick the moneylender's pocket", ["en"]) is not None
    world = demo_world()
    scene = scene_for(world, new_state(world), "ren")
    text = 'I tell Hilda: "I could steal your keys, you know"'
    say(scene, text)
    found = talk_target(scene, text, scene.state.events[-1].id)
    assert found is not None and found.id == "hilda"
