"""Reading a bracket directive's body into an effect (seed 000 "Sintaxis de directivas").

The value rules (JSON, quoted text, numbers, literals, shorthand, implicit set) are listed in
`engine.directives`' docstring. `_Malformed` and the JSON decoder are shared with the extractor,
the audio reader and the JSON Patch reader, so they live here.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from engine.state import Effect, Path

_OPS: Final = "set|add|subtract|multiply|toggle|append|merge|push|delete"


_NOTHING: Final[Any] = object()


class _Malformed(Exception):
    """A directive that cannot be read; carries the reason for `Skipped`."""


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"number out of range: {text}")
    return number


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER: Final = json.JSONDecoder(parse_float=_finite, parse_constant=_refuse_constant)
_SCAN_JSON: Final[Any] = _DECODER.scan_once  # type: ignore[attr-defined]  # raw_decode, unwrapped
_OPWORD: Final = re.compile(rf"({_OPS})(?=\s|$)", re.IGNORECASE)
_UNSIGNED: Final = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_SHORTHAND: Final = re.compile(rf"([+\-*])\s*({_UNSIGNED})")
_NUMBER: Final = re.compile(rf"[+-]?{_UNSIGNED}")
_INTEGER: Final = re.compile(r"[+-]?\d+")
_SIGN_OPS: Final = {"+": "add", "-": "subtract", "*": "multiply"}
_LITERALS: Final[dict[str, Any]] = {"true": True, "false": False, "null": None}


def _effect(
    variable_id: str, parts: tuple[str, ...], body: str, source: str, decoded: Any
) -> tuple[Effect, bool]:
    """Read a directive body (``op value``, shorthand or implicit set) into an effect.

    The flag says whether the value was a JSON object or array (seed 000 step 4).
    """
    path = _dot_path(parts) if parts else ()
    quick = _QUICK.fullmatch(body)
    if quick is not None:
        operation, value = _quick(quick)
        return Effect(variable_id, path, operation, value, source), False
    text = body.strip()
    word = _OPWORD.match(text)
    if word is not None:
        operation = word.group(1).lower()
        rest = text[word.end() :].lstrip()
        if not rest:
            if operation == "toggle":
                return Effect(variable_id, path, "toggle", None, source), False
            if operation == "delete":  # seed 000: degrades silently to an implicit set
                return Effect(variable_id, path, "set", word.group(1), source), False
            raise _Malformed(f"{operation} needs a value")
    else:
        if not text:
            raise _Malformed("the directive has no value")
        shorthand = _SHORTHAND.fullmatch(text)
        if shorthand is not None:
            operation = _SIGN_OPS[shorthand.group(1)]
            return Effect(variable_id, path, operation, _number(shorthand.group(2)), source), False
        operation, rest = "set", text
    value, is_json = _value(rest, decoded)
    if operation == "toggle":
        value = None
    return Effect(variable_id, path, operation, value, source), is_json


# The most common bodies, read in one match; each alternative gives what the general reading of
# `_effect` gives for it (``-5`` subtract 5, ``set -10``, ``42``, ``set "text"``, ``toggle``).
_QUICK: Final = re.compile(
    r"\s*(?:"
    r"(?P<sign>[+\-*])\s*(?P<shorthand>[0-9]{1,15})"
    r"|(?P<op>set|add|subtract|multiply)\s+(?P<number>[+-]?[0-9]{1,15})"
    r"|(?P<bare>[0-9]{1,15})"
    r'|(?P<textop>set|append)\s+"(?P<text>[^"\\\n]*)"'
    r"|(?P<toggle>toggle)"
    r")\s*"
)


def _quick(match: re.Match[str]) -> tuple[str, Any]:
    sign, op, textop = match.group("sign", "op", "textop")
    if sign is not None:
        return _SIGN_OPS[sign], int(match.group("shorthand"))
    if op is not None:
        return op, int(match.group("number"))
    if textop is not None:
        return textop, match.group("text")
    if match.group("toggle") is not None:
        return "toggle", None
    return "set", int(match.group("bare"))


def _value(text: str, decoded: Any) -> tuple[Any, bool]:
    first = text[0]
    if first in "{[":
        if decoded is not _NOTHING:
            return decoded, True
        try:
            return _DECODER.decode(text), True
        except ValueError as error:
            raise _Malformed(f"invalid JSON: {_json_error(error)}") from None
        except RecursionError:
            raise _Malformed("invalid JSON: nested too deeply") from None
    if first == '"':
        try:
            value = _DECODER.decode(text)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, str):
            return value, False
        if len(text) >= 2 and text.endswith('"'):
            return text[1:-1], False
        raise _Malformed("malformed string (no closing quote)")
    if _NUMBER.fullmatch(text):
        return _number(text), False
    literal = _LITERALS.get(text.lower(), _NOTHING)
    if literal is not _NOTHING:
        return literal, False
    return text, False


def _number(text: str) -> int | float:
    try:
        if _INTEGER.fullmatch(text):
            return int(text)
        number = float(text)
    except ValueError:
        raise _Malformed(f"number too large: {text[:40]}") from None
    if not math.isfinite(number):
        raise _Malformed(f"number out of range: {text[:40]}")
    return number


def _dot_path(parts: tuple[str, ...] | list[str]) -> Path:
    path: list[str | int] = []
    for part in parts:
        if not part:
            raise _Malformed("empty segment in the dot path")
        path.append(int(part) if part.isdigit() and part.isascii() else part)
    return tuple(path)


def _json_error(error: ValueError) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at column {error.colno}"
    return str(error)
