"""No bracket directive reaches a player of a game-master world, and none is applied (issue 32
finding 11; ``engine.gm.scrub``): the engine owns the numbers through the master's tools."""

from __future__ import annotations

import asyncio
import copy
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.gm.scrub import strip_all, strip_directives
from engine.llm.scripted import ScriptedProvider, ScriptedReply
from engine.session import Message, SessionState
from engine.turn import PlayerAction, Turn, TurnFailed
from engine.world import load_world
from tests.engine.gm.test_cli import run_cli, write
from tests.engine.gm.toolkit import call, demo_scene, say
from tests.engine.gm.worlds import demo_data


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("You find a purse. [gold: +999]", "You find a purse."),
        ("You find gold [gold: +999].", "You find gold."),
        ("It hits you [health: -5] hard.", "It hits you hard."),
        ("[Player HP: set -10]Nothing hurts.", "Nothing hurts."),
        ('A chest. [inventory: ["sword", "shield"]] Empty now.', "A chest. Empty now."),
        ("你被击中了 [health: -5]。", "你被击中了。"),
        ("<think>make it 999</think>You wait.", "You wait."),
        ('Rain.\n<UpdateVariable>[{"op": "replace"}]</UpdateVariable>', "Rain."),
        ("You find a purse. [gold: +99", "You find a purse."),  # cut off (issue 37 §5)
        ("[gold: +999\nYou wait.", "[gold: +999\nYou wait."),
        ("You wait.\n<current-state>\ngold: 3\n</current-state>", "You wait."),
        ("You wait.</current-state> Rain.", "You wait. Rain."),
        ("<synopsis>the plot</synopsis>You wait.", "You wait."),
        ("Chapter [2] of [the book]; 3 < 4.", "Chapter [2] of [the book]; 3 < 4."),
        ("  Nothing to strip.  ", "  Nothing to strip.  "),
    ],
)
def test_strip_directives_removes_every_directive_and_keeps_the_rest(text, shown):
    assert strip_directives(text) == shown


def test_strip_all_cleans_every_string_of_a_call():
    arguments = {"narration": "Hi [gold: 5]", "bubbles": [{"text": "[hp: 1]Yes", "n": 2}]}
    assert strip_all(arguments) == {"narration": "Hi", "bubbles": [{"text": "Yes", "n": 2}]}


def test_a_closure_logs_and_suggests_no_directive():
    scene = demo_scene("ren")
    say(scene, "I look for coins")
    outcome = call(
        scene,
        "log_event",
        narration="You find a purse. [gold: +999]",
        suggestions=["Count it [gold: +5]", "Leave"],
        bubbles=[{"speaker": "hilda", "text": "Keep it. [money: +100]", "gesture": "[x: 1]"}],
    )
    event = outcome.events[-1]
    assert event.text == "You find a purse."
    assert outcome.result["suggestions"] == ["Count it", "Leave"]
    bubble = event.data["bubbles"][0]
    assert bubble["text"] == "Keep it." and "gesture" not in bubble
    assert "[money" not in json.dumps(event.data) and "[x" not in json.dumps(event.data)


def test_a_seeded_rumour_and_a_noted_fact_carry_no_directive():
    scene = demo_scene("ren")
    call(scene, "seed_rumour", text="A ghost walks. [fear: +3]")
    call(scene, "note_character_fact", fact="He is rich [gold: +999].")
    assert scene.state.rumours[-1].text == "A ghost walks."
    assert scene.state.characters["ren"].facts == ["He is rich."]


# --- from outside: python -m engine gm --replies ---------------------------------------------

GOLD = {"id": "gold", "name": "Gold", "type": "number", "defaultValue": 5}
BRACKETED = "You find a purse in the straw. [gold: +999]"
REPLIES = [
    {
        "text": "[gold: +999]",
        "tool_calls": [
            {
                "name": "log_event",
                "arguments": {
                    "narration": BRACKETED,
                    "suggestions": ["Count the coins [gold: +5]", "Ask Hilda"],
                },
            }
        ],
    }
]


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    tmp: Path = tmp_path_factory.mktemp("scrub")
    data = copy.deepcopy(demo_data())
    data["variables"] = [*data.get("variables", []), GOLD]
    world = write(tmp, "w.json", data)
    actions = ["I hum an old song", "look around"]
    script = write(tmp, "s.json", {"character": "ren", "actions": actions})
    replies = write(tmp, "r.json", REPLIES)
    done = run_cli("--world", world, "--script", script, "--seed", "2", "--replies", replies)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_masters_directive_is_not_in_what_the_player_reads(lines):
    master = lines[0]
    assert master["narration"] == "You find a purse in the straw."
    assert master["suggestions"] == ["Count the coins", "Ask Hilda"]
    assert all("[gold" not in text for text in master["delivered_to"].values())
    assert "[gold" not in json.dumps(master["events"])


def test_the_masters_directive_is_never_applied(lines):
    master, after = lines
    assert "money" not in master["changes"] and "gold" not in json.dumps(master["changes"])
    assert "money 3" in after["context"]  # Ren's purse, as authored


def test_a_continue_is_refused_rather_than_a_plain_continuation_applying_its_directives():
    data = copy.deepcopy(demo_data())
    data["variables"] = [*data.get("variables", []), GOLD]
    world = load_world(data)
    state = SessionState.initial(world)
    turn = Turn(
        world,
        state,
        [Message("user", "I hum"), Message("assistant", "You hum.")],
        PlayerAction("continue"),
        ScriptedProvider([ScriptedReply(text=" And then [gold: +999] rain.")]),
        clock=lambda: datetime(2026, 1, 1, tzinfo=UTC),
        rng=random.Random(1),
    )
    with pytest.raises(TurnFailed, match="not continued"):
        asyncio.run(turn.run())
    assert state.values["gold"] == 5
