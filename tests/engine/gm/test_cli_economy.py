"""``python -m engine gm`` over Brackenford offline (issue 33 §1): Ren buys bread, sells the rope
and hands the chalice in, the engine's moves at zero model calls, the errand completed by its
world rule. Reaching the chalice takes a lock and a search, the offline master's checks (their
rolls tried three times, so the route holds whatever the dice)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.engine.gm.test_cli import run_cli, write
from tests.engine.gm.worlds import DEMO_PATH

TRIES = 3
ROUTE: list[Any] = [
    "take the rope",
    *(["pick the lock", {"roll": True}] * TRIES),
    "go down",
    *(["search"] * TRIES),
    "take the chalice",
    "go up",
    "go south",
    "go in",
    "buy a loaf of bread",
    "sell the coil of rope",
    "go out",
    "go west",
    "give the chalice to the priest",
]
TRADE = ("buy a loaf of bread", "sell the coil of rope", "give the chalice to the priest")


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    script = write(tmp_path_factory.mktemp("gm"), "s.json", {"character": "ren", "actions": ROUTE})
    done = run_cli("--world", str(DEMO_PATH), "--script", script, "--seed", "7")
    assert done.returncode == 0, done.stderr
    played = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(played) == len(ROUTE)
    return {str(line["input"]): line for line in played}


def test_buying_selling_and_the_hand_in_are_engine_moves_at_no_model_call(lines):
    for action in TRADE:
        assert (lines[action]["kind"], lines[action]["model_calls"]) == ("engine", 0), action


def test_the_purse_follows_the_deals_and_the_reward(lines):
    assert lines["buy a loaf of bread"]["changes"]["money"] == {"from": 3, "to": 2}
    assert lines["sell the coil of rope"]["changes"]["money"] == {"from": 2, "to": 3}
    assert lines["give the chalice to the priest"]["changes"]["money"] == {"from": 3, "to": 23}


def test_the_chalice_handed_to_the_priest_completes_the_missing_chalice(lines):
    given = lines["give the chalice to the priest"]
    assert given["changes"]["completed"] == ["find-chalice"]
    assert given["narration"] == (
        'You give the silver chalice to the priest. "The missing chalice" is done. '
        "You receive 20 coins."
    )
    assert [e["kind"] for e in given["events"]] == ["give", "errand"]
