"""State conditions of seed 004 "条件": the seven operators, all/any, and the "why" text."""

from __future__ import annotations

from typing import Any

import pytest

from engine.conditions import (
    check_condition,
    check_conditions,
    describe_condition,
    describe_conditions,
)
from engine.world import Condition

VALUES: dict[str, Any] = {
    "health": 25,
    "gold": 100.0,
    "phase": "act2",
    "label": "12",
    "mood": "Deeply Suspicious",
    "has-key": True,
    "inventory": ["sword", "Potion", 3],
    "npcs": {"aria": {"trust": 80}},
}


def cond(variable: str, operator: str, value: Any) -> Condition:
    return Condition(variable_id=variable, operator=operator, value=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("variable", "operator", "value", "expected"),
    [
        ("phase", "eq", "act2", True),
        ("phase", "eq", "Act2", False),
        ("phase", "neq", "act1", True),
        ("health", "eq", 25, True),
        ("health", "eq", "25", True),
        ("gold", "eq", 100, True),
        ("label", "eq", 12, True),
        ("label", "eq", "12.0", False),
        ("has-key", "eq", True, True),
        ("has-key", "eq", "true", True),
        ("has-key", "eq", 1, False),
        ("health", "gt", 20, True),
        ("health", "gt", 25, False),
        ("health", "gte", 25, True),
        ("health", "lt", "30", True),
        ("health", "lte", 24.9, False),
        ("label", "gt", 11, True),
        ("phase", "gt", 1, False),
        ("has-key", "gt", 0, False),
        ("mood", "contains", "suspicious", True),
        ("mood", "contains", "calm", False),
        ("inventory", "contains", "sword", True),
        ("inventory", "contains", "potion", False),
        ("inventory", "contains", "3", True),
        ("npcs", "contains", "aria", True),
        ("npcs", "contains", "kai", False),
        ("health", "contains", 2, False),
    ],
)
def test_operators(variable: str, operator: str, value: Any, expected: bool) -> None:
    assert check_condition(cond(variable, operator, value), VALUES) is expected


@pytest.mark.parametrize("operator", ["eq", "gt", "lt", "gte", "lte", "contains"])
def test_a_missing_variable_is_false_and_never_an_error(operator: str) -> None:
    assert check_condition(cond("nowhere", operator, 1), VALUES) is False


def test_neq_on_a_missing_variable_is_true() -> None:
    assert check_condition(cond("nowhere", "neq", 1), VALUES) is True


def test_an_unknown_operator_is_false() -> None:
    assert (
        check_condition({"variableId": "health", "operator": "between", "value": 1}, VALUES)
        is False
    )


def test_conditions_as_plain_dicts_in_either_spelling() -> None:
    assert check_condition({"variableId": "health", "operator": "lt", "value": 30}, VALUES)
    assert check_condition({"variable_id": "health", "operator": "lt", "value": 30}, VALUES)


def test_all_needs_every_condition_and_any_needs_one() -> None:
    both = [cond("health", "lt", 30), cond("phase", "eq", "act1")]
    assert check_conditions(both, "all", VALUES) is False
    assert check_conditions(both, "any", VALUES) is True
    assert check_conditions([cond("phase", "eq", "act1")], "any", VALUES) is False


def test_no_conditions_hold() -> None:
    assert check_conditions([], "all", VALUES) is True
    assert check_conditions([], "any", VALUES) is True


def test_describe_names_the_operator_and_the_value_seen() -> None:
    assert describe_condition(cond("health", "lt", 30), VALUES) == "health < 30 (is 25)"
    assert describe_condition(cond("phase", "eq", "act2"), VALUES) == 'phase == "act2" (is "act2")'
    assert describe_condition(cond("gold", "gte", 50.0), VALUES) == "gold >= 50 (is 100)"
    assert describe_condition(cond("mood", "contains", "sus"), VALUES) == (
        'mood contains "sus" (is "Deeply Suspicious")'
    )
    assert describe_condition(cond("lost", "neq", None), VALUES) == "lost != null (missing)"


def test_describe_joins_with_the_logic() -> None:
    both = [cond("health", "lt", 30), cond("has-key", "eq", True)]
    assert describe_conditions(both, "all", VALUES) == (
        "health < 30 (is 25) and has-key == true (is true)"
    )
    assert describe_conditions(both, "any", VALUES) == (
        "health < 30 (is 25) or has-key == true (is true)"
    )
