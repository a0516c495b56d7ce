"""engine.gm.closure_rules.actions: a player's message cut into its actions (issue 34 §2, seed 001
"Resuelve más de una acción por mensaje"): the first is resolved, the master is told the rest
waits, the narration says so and the rest comes back as suggestions."""

from __future__ import annotations

from typing import Any

import pytest

from engine.gm.closure_rules.actions import action_clauses, tell_first
from engine.gm.words import lexicon
from engine.llm.scripted import ScriptedProvider, parse_replies
from tests.engine.gm.test_loop import Spy
from tests.engine.gm.worlds import demo_world, new_state, play

SEVERAL = [
    ("es", "Abro la puerta, cojo la gema y huyo", ["Abro la puerta", "cojo la gema", "huyo"]),
    ("es", "Bebo la cerveza. Luego bajo al sótano.", ["Bebo la cerveza", "bajo al sótano"]),
    ("en", "I open the door, grab the gem and run", ["I open the door", "grab the gem", "run"]),
    ("en", "I take the rope and go south", ["I take the rope", "go south"]),
    ("zh", "我打开门，拿起宝石，然后逃走", ["我打开门", "拿起宝石", "逃走"]),
]
ONE = [
    ("es", "Cojo la cuerda y la gema"),
    ("es", "Le digo a Hilda que me dé pan y cerveza"),
    ("en", "I take the rope and the lantern"),
    ("en", "I ask Hilda about the chalice and the cellar"),
    ("zh", "我拿起绳子和灯笼"),
]


@pytest.mark.parametrize(("language", "text", "parts"), SEVERAL)
def test_a_message_with_several_actions_is_cut_at_each_new_verb(language, text, parts):
    assert action_clauses(text, language) == parts


@pytest.mark.parametrize(("language", "text"), ONE)
def test_things_joined_by_and_stay_one_action(language, text):
    assert action_clauses(text, language) == [text]


def test_the_master_is_told_to_resolve_only_the_first_and_that_the_rest_waits():
    told = tell_first("Abro la puerta", ["cojo la gema", "huyo"], "es")
    assert told.startswith("Abro la puerta\n")
    assert "cojo la gema; huyo" in told and "solo esta primera" in told
    assert tell_first("I hum", [], "en") == "I hum"


@pytest.mark.parametrize(
    ("text", "first", "rest"),
    [
        ("Abro la bodega, cojo la cuerda y huyo", "Abro la bodega", ["cojo la cuerda", "huyo"]),
        ("I hum a song, drink my ale and leave", "I hum a song", ["drink my ale", "leave"]),
        ("我打开地窖的门，拿起绳子，然后逃走", "我打开地窖的门", ["拿起绳子", "逃走"]),
    ],
)  # fmt: skip
def test_offline_one_action_is_resolved_and_the_narration_tells_the_rest_waits(text, first, rest):
    world = demo_world()
    result = play(world, new_state(world), text, "ren")
    assert first in result.narration and rest[0] not in result.narration
    assert lexicon("en").t("one_at_a_time") in result.narration
    assert result.suggestions[: len(rest)] == rest


def test_the_tool_calling_master_reads_the_first_action_and_the_note_about_the_rest():
    reply: dict[str, Any] = {
        "tool_calls": [{"name": "log_event", "arguments": {"narration": "You hum, softly."}}]
    }
    spy = Spy(ScriptedProvider(parse_replies([reply])))
    world = demo_world()
    result = play(
        world, new_state(world), "I hum a song, drink my ale and leave", "ren", provider=spy
    )
    asked = spy.requests[0].messages[-1].content
    assert "I hum a song\n(The player also wrote: drink my ale; leave." in asked
    assert result.narration.startswith("You hum, softly.")
    assert result.narration.endswith(lexicon("en").t("one_at_a_time"))
