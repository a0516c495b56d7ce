"""Shared pieces of the SillyTavern interop: the error type, ids, lenient field coercion."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any

from engine.jsonguard import MAX_JSON_DEPTH, JsonInputError, check_value, nesting_depth

MAX_IMPORT_BYTES = 20 * 1024 * 1024

_MACROS = (
    (re.compile(r"<USER>", re.IGNORECASE), "{{user}}"),
    (re.compile(r"<BOT>", re.IGNORECASE), "{{char}}"),
)
_SLUG_JUNK = re.compile(r"[^a-z0-9]+")
_SLUG_MAX = 48


class CardError(ValueError):
    """An import that cannot go on; the message is meant for the creator who uploaded the file.

    ``errors`` carries per-field problems when there are several (an invalid Fabula world).
    """

    def __init__(self, message: str, errors: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.errors = errors or []


def slugify(text: str) -> str:
    """Kebab-case ASCII slug of ``text``; empty when nothing Latin survives (CJK names)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = _SLUG_JUNK.sub("-", ascii_text.lower()).strip("-")
    return slug[:_SLUG_MAX].rstrip("-")


class IdAllocator:
    """Hands out unique kebab-case ids: the name's slug, then ``slug-2``, ``slug-3``…

    Names without a usable slug (CJK, punctuation) get ``entry-1``, ``entry-2``… (the
    ``fallback`` prefix).
    """

    def __init__(self, taken: set[str] | None = None, fallback: str = "entry"):
        self.taken: set[str] = set(taken or ())
        self.fallback = fallback

    def claim(self, wanted: str) -> bool:
        """Take ``wanted`` as is when it is free; False when it is already used."""
        if wanted in self.taken:
            return False
        self.taken.add(wanted)
        return True

    def allocate(self, name: str) -> str:
        base = slugify(name)
        if base and base != self.fallback and self.claim(base):
            return base
        base = base or self.fallback
        counter = 1 if base == self.fallback else 2
        while f"{base}-{counter}" in self.taken:
            counter += 1
        new_id = f"{base}-{counter}"
        self.taken.add(new_id)
        return new_id


def convert_text(value: str) -> str:
    """Normalise card text: CRLF → LF, legacy ``<USER>``/``<BOT>`` → ``{{user}}``/``{{char}}``."""
    text = value.replace("\r\n", "\n").replace("\r", "\n")
    for pattern, macro in _MACROS:
        text = pattern.sub(macro, text)
    return text


class Coercer:
    """Reads loosely typed JSON fields, coercing or skipping bad values with a warning each."""

    def __init__(self, warnings: list[str]):
        self.warnings = warnings

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def text(self, value: Any, where: str) -> str:
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, bool | int | float):
            self.warn(f"{where}: expected text, got {json_type(value)}; converted")
            return str(value)
        self.warn(f"{where}: expected text, got {json_type(value)}; ignored")
        return ""

    def flag(self, value: Any, where: str, default: bool) -> bool:
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float):
            return value != 0
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", ""):
            return value.strip().lower() in ("true", "1")
        self.warn(f"{where}: expected true/false, got {json_type(value)}; using {default}")
        return default

    def integer(self, value: Any, where: str) -> int | None:
        if value is None or isinstance(value, bool):
            if isinstance(value, bool):
                self.warn(f"{where}: expected a number, got boolean; ignored")
            return None
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
            return int(value)
        self.warn(f"{where}: expected a whole number, got {json_type(value)}; ignored")
        return None

    def texts(self, value: Any, where: str) -> list[str]:
        """A list of texts (greetings): converted like card text, empty ones dropped."""
        if value is None:
            return []
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list):
            self.warn(f"{where}: expected a list of texts, got {json_type(value)}; ignored")
            return []
        out = []
        for index, item in enumerate(items):
            text = convert_text(self.text(item, f"{where}[{index}]")).strip()
            if text:
                out.append(text)
        return out

    def strings(self, value: Any, where: str) -> list[str]:
        """A keyword list: a list of strings, or one comma-separated string."""
        if value is None:
            return []
        if isinstance(value, str):
            items: list[Any] = value.split(",")
        elif isinstance(value, list):
            items = value
        else:
            self.warn(f"{where}: expected a list of words, got {json_type(value)}; ignored")
            return []
        out: list[str] = []
        for item in items:
            if isinstance(item, int | float) and not isinstance(item, bool):
                item = str(item)
            if not isinstance(item, str):
                self.warn(f"{where}: skipped a {json_type(item)} among the words")
                continue
            word = item.strip()
            if word and word not in out:
                out.append(word)
        return out


def json_safe(value: Any) -> Any:
    """Replace what JSON cannot carry (NaN, infinities) with null, so kept data round-trips."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def parse_json_object(text: str, what: str) -> dict[str, Any]:
    """Parse JSON text that must hold an object; CardError("<what> is invalid: …") otherwise.

    Text nested deeper than MAX_JSON_DEPTH, a number Python cannot hold and a NUL character
    (named by its path) are refused too; NaN is kept (``json_safe`` turns it into null).
    """
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise CardError(f"{what} is invalid: nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CardError(
            f"{what} is invalid: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise CardError(f"{what} is invalid: nested too deeply") from None
    except ValueError:  # an integer of more than 4,300 digits
        raise CardError(f"{what} is invalid: a number is out of range") from None
    if not isinstance(value, dict):
        raise CardError(f"{what} is invalid: expected an object, got {json_type(value)}")
    try:
        check_value(value, allow_nan=True)
    except JsonInputError as exc:
        raise CardError(f"{what} is invalid: {exc}", [str(exc)]) from None
    return value
