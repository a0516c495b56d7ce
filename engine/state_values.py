"""JSON-like values for the operations (seed 002 "所有操作"): copying, comparing, coercing.

Both the typed roots (`engine.state`) and json variables (`engine.state_json`) refuse a value
that does not fit with `_Refused`; the helpers they share live here, so `engine.state_json`
never imports `engine.state`, which imports it.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

_MISSING: Final[Any] = object()
_NUMBER: Final = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_TRUE: Final = frozenset({"true", "yes", "on", "1"})
_FALSE: Final = frozenset({"false", "no", "off", "0"})


class _Refused(Exception):
    """An operation that does not fit; carries the reason for `Skipped`."""


def copy_value(value: Any) -> Any:
    """A deep copy of a JSON-like value (dicts and lists copied, scalars shared)."""
    kind = type(value)
    if kind is dict:
        return {
            key: item if type(item) in _IMMUTABLE else copy_value(item)
            for key, item in value.items()
        }
    if kind is list:
        return [item if type(item) in _IMMUTABLE else copy_value(item) for item in value]
    if isinstance(value, dict):
        return {key: copy_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_value(item) for item in value]
    return value


_IMMUTABLE: Final = frozenset({str, int, float, bool, type(None)})  # shared, never copied


def same_value(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1 and "1" is not 1."""
    if a is b:
        return True
    ka, kb = type(a), type(b)
    if ka is bool or kb is bool:
        return ka is kb and a == b
    if ka in (int, float) and kb in (int, float):
        return bool(a == b)
    if ka is not kb:
        return False
    if ka is dict:
        return len(a) == len(b) and all(k in b and same_value(v, b[k]) for k, v in a.items())
    if ka is list:
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


# --- operands ----------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number_operand(value: Any) -> int | float:
    if _is_number(value):
        if isinstance(value, float) and not math.isfinite(value):
            raise _Refused(f"'{value}' is not a finite number")
        return _whole(value)
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        text = value.strip()
        try:
            number = float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            raise _Refused(f"'{value}' is too large a number") from None
        if isinstance(number, float) and not math.isfinite(number):
            raise _Refused(f"'{value}' is not a finite number")
        return _whole(number)
    raise _Refused(f"{_show(value)} is not a number")


def _arithmetic(op: str, current: int | float, operand: int | float) -> int | float:
    if op == "add":
        result = current + operand
    elif op == "subtract":
        result = current - operand
    else:
        result = current * operand
    if isinstance(result, float):
        if not math.isfinite(result):
            raise _Refused("the result is not a finite number")
        result = round(result, 10)
    return _whole(result)


def _whole(number: int | float) -> int | float:
    if isinstance(number, float) and number.is_integer() and abs(number) < 2**53:
        return int(number)
    return number


def _text_operand(value: Any, op: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_number(value):
        return str(_whole(value))
    raise _Refused(f"{op} needs text, got {_kind(value)}")


def _bool_operand(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if _is_number(value) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise _Refused(f"{_show(value)} is not true or false")


def _kind(value: Any) -> str:
    if value is None or value is _MISSING:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 60 else text[:57] + "..."
