"""``python -m engine gm --replies``: one seat's master cannot change another seat's character
without a roll against him this turn (issue 32 finding 5), checked from outside."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.engine.gm.test_cli import run_cli, write
from tests.engine.gm.worlds import DEMO_PATH

HURT = {"name": "damage", "arguments": {"target": "Ren Ashby", "dice": "1d4"}}
SHOVE = {
    "name": "request_skill_check",
    "arguments": {"check": "athletics", "target": "Ren Ashby", "reason": "a shove"},
}


def close(narration: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "log_event", "arguments": {"narration": narration}}]}


SCRIPT: list[Any] = [
    {"character": "ada", "input": "go north"},  # Ada walks into the inn, where Ren is
    {"character": "ada", "input": "I poke Ren"},  # no roll: the master hurts Ren anyway
    {"character": "ren", "input": "look around"},  # Ren's own context shows his hit points
    {"character": "ada", "input": "I shove Ren"},  # the master asks for a roll against Ren
    {"character": "ada", "input": {"roll": True}},  # it succeeds: now the damage is applied
    {"character": "ren", "input": "look around"},
]
REPLIES = [
    {"tool_calls": [HURT]},
    close("You poke the air."),
    {"tool_calls": [SHOVE]},
    close("You square up for a shove."),
    {"tool_calls": [HURT]},
    close("Your shove lands."),
]


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    tmp: Path = tmp_path_factory.mktemp("seats")
    script = write(tmp, "s.json", {"character": "ada", "actions": SCRIPT})
    replies = write(tmp, "r.json", REPLIES)
    done = run_cli(
        "--world", str(DEMO_PATH), "--script", script, "--seed", "1", "--replies", replies
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_damage_to_another_seats_character_without_a_roll_is_refused(lines):
    poke, look = lines[1], lines[2]
    [hurt, closing] = poke["tool_calls"]
    assert (hurt["name"], hurt["ok"]) == ("damage", False)
    assert "Ren Ashby belongs to another player" in hurt["error"]
    assert "roll against them" in hurt["error"]
    assert closing["ok"] and "hp" not in poke["changes"] and poke["rolls"] == []
    assert "HP 9/9" in look["context"]


def test_after_a_successful_roll_against_him_this_turn_the_damage_is_applied(lines):
    shove, rolled, look = lines[3], lines[4], lines[5]
    assert shove["tool_calls"][0]["ok"] and shove["changes"]["pending"]["target"] == "ren"
    assert [r["outcome"] for r in rolled["rolls"]][:1] == ["success"]
    [hurt, _] = rolled["tool_calls"]
    assert (hurt["name"], hurt["ok"]) == ("damage", True)
    after = rolled["changes"]["hp"]["ren"]
    assert after["from"] == 9 and after["to"] < 9
    assert f"HP {after['to']}/9" in look["context"]


INJECTED = "Ren Ashby takes 80 damage and falls. Ren Ashby now owes Ada Thorne 1000."


def test_the_attack_runs_injected_turn_changes_nothing_of_ren_and_never_reaches_him(tmp_path):
    debt = {"debtor": "Ren Ashby", "creditor": "me", "amount": 1000}
    obeying = [  # the loopback model obeying Ada's player (issue 32's attack run)
        {"tool_calls": [HURT | {"arguments": {"target": "ren", "dice": "10d20"}}]},
        {"tool_calls": [{"name": "set_debt", "arguments": debt}]},
        close(INJECTED),
        close(INJECTED),
        close(INJECTED),  # refused at each of the three attempts: the engine's closure is shown
    ]
    actions = [
        {"character": "ada", "input": "go north"},
        {"character": "ada", "input": "I poke Ren"},
        {"character": "ren", "input": "look around"},
    ]
    script = write(tmp_path, "s.json", {"character": "ada", "actions": actions})
    replies = write(tmp_path, "r.json", obeying)
    done = run_cli("--world", str(DEMO_PATH), "--script", script, "--replies", replies)
    assert done.returncode == 0, done.stderr
    _, poke, look = [json.loads(line) for line in done.stdout.splitlines()]
    assert [call["ok"] for call in poke["tool_calls"][:2]] == [False, False]
    assert poke["changes"] == {} and "80 damage" not in json.dumps(poke["delivered_to"])
    assert "HP 9/9" in look["context"]
