"""State conditions on entries, rules, reactions and conditional BGM (seed 004 "条件").

A condition is ``{variableId, operator, value}`` with the operators ``eq neq gt lt gte lte
contains`` and a list of them is combined with ``conditionLogic`` ``all`` (AND) or ``any`` (OR).
Checking never raises: a missing variable compares as ``None`` (so ``gt``/``lt`` are false and
``neq`` is true), an unknown operator is false.

Comparison rules:

- ``eq``/``neq``: a number compares with a number or a numeric string as numbers
  (``"5" == 5.0``); a boolean with a boolean or the strings ``"true"``/``"false"``; anything else
  by plain equality (two strings exactly, case-sensitive).
- ``gt lt gte lte``: both sides must be numbers or numeric strings, otherwise false.
- ``contains``: a string contains the expected text (case-insensitive); a list contains an
  element equal to it (``eq`` rules); an object contains it as a key.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from json.encoder import encode_basestring
from typing import Any

from engine.world import Condition

ConditionLike = Condition | Mapping[str, Any]

SYMBOLS = {
    "eq": "==",
    "neq": "!=",
    "gt": ">",
    "lt": "<",
    "gte": ">=",
    "lte": "<=",
    "contains": "contains",
}


def check_condition(cond: ConditionLike, values: Mapping[str, Any]) -> bool:
    """Tell whether one condition holds for ``values``; bad input is simply false."""
    variable_id, operator, expected = _parts(cond)
    actual = values.get(variable_id)
    try:
        return _check(operator, actual, expected)
    except (TypeError, ValueError, OverflowError):
        return False


def check_conditions(
    conditions: Iterable[ConditionLike], logic: str, values: Mapping[str, Any]
) -> bool:
    """Combine conditions with ``logic`` (``any`` = OR, anything else = AND); empty is true."""
    items = list(conditions)
    if not items:
        return True
    if logic == "any":
        return any(check_condition(c, values) for c in items)
    return all(check_condition(c, values) for c in items)


def describe_condition(cond: ConditionLike, values: Mapping[str, Any]) -> str:
    """Render a condition and the value it saw, e.g. ``health < 30 (is 25)``."""
    variable_id, operator, expected = _parts(cond)
    symbol = SYMBOLS.get(operator, operator)
    actual = values.get(variable_id)
    seen = "missing" if variable_id not in values else f"is {render_value(actual)}"
    return f"{variable_id} {symbol} {render_value(expected)} ({seen})"


def describe_conditions(
    conditions: Iterable[ConditionLike], logic: str, values: Mapping[str, Any]
) -> str:
    """Render a list of conditions joined by ``and``/``or`` as ``logic`` says."""
    joiner = " or " if logic == "any" else " and "
    return joiner.join(describe_condition(c, values) for c in conditions)


def render_value(value: Any) -> str:
    """Compact JSON for a condition value; whole floats print as integers."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, str):
        return encode_basestring(value)
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


def _parts(cond: ConditionLike) -> tuple[str, str, Any]:
    if isinstance(cond, Condition):
        return cond.variable_id, cond.operator, cond.value
    variable_id = cond.get("variableId", cond.get("variable_id", ""))
    return str(variable_id), str(cond.get("operator", "")), cond.get("value")


def _check(operator: str, actual: Any, expected: Any) -> bool:
    if operator == "eq":
        return _equal(actual, expected)
    if operator == "neq":
        return not _equal(actual, expected)
    if operator in ("gt", "lt", "gte", "lte"):
        a, b = _number(actual), _number(expected)
        if a is None or b is None:
            return False
        if operator == "gt":
            return a > b
        if operator == "lt":
            return a < b
        if operator == "gte":
            return a >= b
        return a <= b
    if operator == "contains":
        return _contains(actual, expected)
    return False


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return None if math.isnan(number) else number


def _boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _equal(actual: Any, expected: Any) -> bool:
    if isinstance(actual, bool) or isinstance(expected, bool):
        a, b = _boolean(actual), _boolean(expected)
        return a is not None and a == b
    if isinstance(actual, str) and isinstance(expected, str):
        return actual == expected
    a_num, b_num = _number(actual), _number(expected)
    if a_num is not None and b_num is not None:
        return a_num == b_num
    return bool(actual == expected)


def _contains(actual: Any, expected: Any) -> bool:
    if isinstance(actual, str):
        needle = expected if isinstance(expected, str) else render_value(expected)
        return needle.lower() in actual.lower()
    if isinstance(actual, list):
        return any(_equal(item, expected) for item in actual)
    if isinstance(actual, dict):
        return str(expected) in actual
    return False
