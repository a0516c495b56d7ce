"""Untrusted JSON, checked before and after parsing (issue 9 §6: bad input is a clear 4xx).

``json.loads`` recurses once per nesting level, so 100,000 ``[`` raise RecursionError deep in a
request, and pydantic refuses to dump more than ~255 levels; PostgreSQL refuses U+0000 in text
and jsonb, and NaN in jsonb. Each is refused here with the path of the field at fault, before
anything is stored. The checks are cheap for the usual body: two byte counts clear its depth
and one substring search its NUL characters. Limits are in docs/LIMITS.md.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

MAX_JSON_DEPTH = 64

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_NOT_BRACKET = bytes(b for b in range(256) if b not in _STEP)
_MAX_DIGITS = 100
_TOO_DEEP = "too deep"
NUL_MESSAGE = "contains a NUL character (U+0000), which cannot be stored"
SURROGATE_MESSAGE = "contains a lone surrogate (U+D800-U+DFFF), which is not valid Unicode"
_SURROGATE = re.compile("[\ud800-\udfff]")
# A JSON escape of a surrogate: a valid pair decodes to one character, a lone half does not.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


class JsonInputError(ValueError):
    """JSON that is refused; ``field`` is its path ("$" for the whole document)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class JsonSyntaxError(JsonInputError):
    """Text that is not JSON at all (as opposed to JSON that breaks a limit)."""


def nesting_depth(raw: bytes | str, limit: int = MAX_JSON_DEPTH) -> int:
    """How deep ``[``/``{`` nest outside strings; 0 when they cannot pass ``limit``.

    A scan of the raw text, so it costs no recursion and runs before ``json.loads`` does.
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if data.count(b"[") + data.count(b"{") <= limit:
        return 0
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKET)
    return max(accumulate(_STEP[b] for b in brackets), default=0)


def decode_utf8(raw: bytes) -> str:
    """Decode a body as UTF-8 (a leading BOM is allowed); JsonInputError names the bad byte."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start]
        raise JsonInputError(
            "$", f"is not valid UTF-8 (byte 0x{bad:02x} at position {exc.start})"
        ) from None


def loads(raw: bytes | str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse untrusted JSON text.

    Raises JsonInputError for text that is not UTF-8, nests deeper than ``max_depth``, holds
    a NUL character, NaN/Infinity or a number too large for a float (each named by its path,
    ``settings.maxTokens``), and JsonSyntaxError for text that is not JSON.
    """
    text = decode_utf8(raw) if isinstance(raw, bytes) else raw
    if "\0" in text:
        raise JsonInputError("$", "contains a NUL byte")
    if nesting_depth(text, max_depth) > max_depth:
        raise JsonInputError("$", f"is nested deeper than {max_depth} levels")
    seen = _Unusual()
    try:
        value = json.loads(
            text, parse_constant=seen.constant, parse_float=seen.number, parse_int=_integer
        )
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError("$", f"not valid JSON: {exc}") from None
    except RecursionError:  # pragma: no cover - the scan above refuses such text first
        raise JsonInputError("$", f"is nested deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise JsonInputError("$", str(exc)) from None
    suspect = _ESCAPED_SURROGATE.search(text) or _SURROGATE.search(text)
    if seen.found or "\\u0000" in text or suspect:
        check_value(value, max_depth=max_depth)  # finds the path of what is wrong
    return value


class _Unusual:
    """Parse hooks that let NaN, Infinity and 1e400 through, noting them for check_value."""

    def __init__(self) -> None:
        self.found = False

    def constant(self, name: str) -> float:
        self.found = True
        return float(name)

    def number(self, text: str) -> float:
        value = float(text)
        self.found = self.found or not math.isfinite(value)
        return value


def _integer(text: str) -> int:
    # Python refuses to convert more than 4,300 digits; no field wants a tenth of that.
    if len(text) > _MAX_DIGITS:
        raise ValueError(f"has a number of more than {_MAX_DIGITS} digits")
    return int(text)


def check_value(
    value: Any,
    *,
    max_depth: int = MAX_JSON_DEPTH,
    root: str = "",
    allow_nan: bool = False,
    allow_nul: bool = False,
) -> None:
    """Refuse parsed JSON with a NUL character, NaN/Infinity or deeper than ``max_depth``.

    For data that did not come through ``loads`` (a dict built by code, a form). Raises
    JsonInputError naming the first offending field.
    """
    found = _problem(value, max_depth, (allow_nan, allow_nul))
    if found is not None:
        keys, message = found
        if message is _TOO_DEEP:
            message = f"is nested deeper than {max_depth} levels"
        path = root
        for key in reversed(keys):
            path = f"{path}[{key}]" if isinstance(key, int) else join_path(path, key)
        raise JsonInputError(path or "$", message)


def _problem(
    node: Any, room: int, allowed: tuple[bool, bool]
) -> tuple[list[str | int], str] | None:
    """The reversed key path and message of the first bad node; recursion is bounded by room."""
    allow_nan, allow_nul = allowed
    if isinstance(node, str):
        if not allow_nul and "\0" in node:
            return [], NUL_MESSAGE
        return ([], SURROGATE_MESSAGE) if _SURROGATE.search(node) else None
    if isinstance(node, float):
        return None if allow_nan or math.isfinite(node) else ([], "must be a finite number")
    if isinstance(node, dict):
        items: Any = node.items()
    elif isinstance(node, list | tuple):
        items = enumerate(node)
    else:
        return None
    if room <= 0:
        return [], _TOO_DEEP
    for key, child in items:
        if not allow_nul and isinstance(key, str) and "\0" in key:
            return [], f"has a key that {NUL_MESSAGE}"
        if isinstance(key, str) and _SURROGATE.search(key):
            return [], f"has a key that {SURROGATE_MESSAGE}"
        if isinstance(child, str | float | dict | list | tuple):
            found = _problem(child, room - 1, allowed)
            if found is not None:
                found[0].append(key)
                return found
    return None


def join_path(path: str, key: Any) -> str:
    """``entries[0]`` + ``content`` → ``entries[0].content``, the house style of field paths."""
    return f"{path}.{key}" if path else str(key)
