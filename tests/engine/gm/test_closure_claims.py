"""The master's claims in structure (issue 34 §1): ``log_event`` may say which items changed
hands, which money moved, what was learned, where the character went, who acted and how the
roll went; the check compares those claims with the turn's tool results exactly, and the
narration with the claims. A break is reported under the rule it belongs to."""

from __future__ import annotations

from typing import Any

import pytest

from engine.gm.closure import TurnFacts, check_closure
from engine.gm.dice import Roll
from engine.gm.tools import ToolCall, ToolOutcome, execute
from tests.engine.gm.toolkit import demo_scene


def applied(name: str, **arguments: Any) -> tuple[ToolCall, ToolOutcome]:
    return ToolCall("t1", name, arguments), ToolOutcome(True, {"done": "."})


def facts(claims: dict[str, Any], *calls: tuple[ToolCall, ToolOutcome], rolls=()) -> TurnFacts:
    return TurnFacts(list(calls), list(rolls), "ren", ["ada"], "en", claims=claims)


def check(narration: str, turn: TurnFacts) -> list[str]:
    return check_closure(narration, turn, demo_scene()).violations


def roll(outcome: str) -> Roll:
    return Roll("check", "d20", [10], [], 15, outcome, False, "athletics", "normal", 10)  # type: ignore[arg-type]


def test_log_event_takes_structured_claims_and_refuses_a_wrong_outcome():
    scene = demo_scene()
    claims = {
        "acted_by": ["me"],
        "changed_hands": [{"item": "rope", "from": "here", "to": "me"}],
        "money": [{"from": "me", "to": "hilda", "amount": 1}],
        "learned": ["wet-footprints"],
        "entered": "square",
        "outcome": "success",
    }
    ok = execute(ToolCall("c", "log_event", {"narration": "You wait.", "claims": claims}), scene)
    assert ok.ok
    bad = execute(
        ToolCall("c", "log_event", {"narration": "x", "claims": {"outcome": "meh"}}), scene
    )
    assert not bad.ok and "outcome" in bad.error


@pytest.mark.parametrize(
    ("claims", "calls", "rule"),
    [
        ({"changed_hands": [{"item": "rope", "to": "me"}]}, [], "failed-tool-narrated"),
        ({"money": [{"from": "me", "to": "hilda", "amount": 2}]}, [], "unregistered-deal"),
        ({"learned": ["wet-footprints"]}, [], "failed-tool-narrated"),
        ({"entered": "old-mill"}, [], "unknown-place"),
        ({"entered": "square"}, [], "failed-tool-narrated"),
        ({"acted_by": ["me", "ada"]}, [], "acts-for-player"),
    ],
)
def test_a_claim_no_tool_result_backs_is_rejected_under_its_rule(claims, calls, rule):
    assert rule in check("You wait by the fire.", facts(claims, *calls))


def test_claims_the_tools_back_pass():
    turn = facts(
        {
            "changed_hands": [{"item": "rope", "to": "me"}],
            "learned": ["wet-footprints"],
            "entered": "square",
            "acted_by": ["me", "hilda"],
        },
        applied("transfer_item", item="rope", to="me"),
        applied("grant_clue", clue="wet-footprints"),
        applied("move_character", to="square"),
    )
    assert check("You wait by the fire.", turn) == []


def test_an_outcome_claimed_against_the_roll_is_rejected():
    assert check("You wait.", facts({"outcome": "success"}, rolls=[roll("failure")])) == [
        "contradicts-roll"
    ]
    assert check("You wait.", facts({"outcome": "failure"}, rolls=[roll("failure")])) == []


def test_a_narration_that_claims_more_than_its_structure_is_rejected():
    gift = applied("transfer_item", item="rope", to="me")
    claimed = {"changed_hands": [{"item": "rope", "to": "me"}]}
    assert check("Hilda hands you the rope.", facts(claimed, gift)) == []
    more = "Hilda hands you the rope, and the lantern too."
    assert check(more, facts(claimed, gift)) == ["failed-tool-narrated"]
    told = "You haul yourself up with ease."
    assert check(told, facts({"outcome": "failure"}, rolls=[roll("failure")])) == [
        "contradicts-roll"
    ]
