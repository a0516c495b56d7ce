"""One entry point for an uploaded file (W10 interop): sniff it, route it, return a world."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from engine.interop.cards import CARD_SPECS, CARD_TEXT_FIELDS, card_to_world
from engine.interop.common import MAX_IMPORT_BYTES, CardError, parse_json_object
from engine.interop.png import is_png, read_png_card_with_warnings
from engine.interop.worldinfo import worldinfo_to_world
from engine.world import WorldDefinition, WorldValidationError, load_world

_FABULA_KEYS = ("version", "variables", "rules", "reactions", "settings", "editorMode")
_WRONG_SHAPE = "JSON is not a character card, a SillyTavern World Info file or a Fabula world"


def import_file(data: bytes, filename: str) -> tuple[WorldDefinition, list[str]]:
    """Turn an uploaded card (PNG or JSON), World Info JSON or Fabula world into a world.

    Returns the world and the warnings of the import (fields coerced, skipped or kept aside).
    Raises CardError with a message for the uploader on anything it cannot use.
    """
    try:
        return _import_file(data, filename)
    except ValidationError as exc:  # a value past a world's bounds (docs/LIMITS.md)
        errors = [_located(err) for err in exc.errors()]
        raise CardError(f"file is invalid: {errors[0]}", errors) from None


def _located(err: Any) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
    message = str(err["msg"])
    return f"{path or '$'}: {message[:1].lower()}{message[1:]}"


def _import_file(data: bytes, filename: str) -> tuple[WorldDefinition, list[str]]:
    if len(data) > MAX_IMPORT_BYTES:
        raise CardError("file is larger than 20 MB")
    if is_png(data):
        warnings: list[str] = []
        card = read_png_card_with_warnings(data, warnings)
        world = card_to_world(card)
        return world, warnings + world.warnings
    if filename.lower().endswith(".png"):
        raise CardError("not a PNG file")
    if data.startswith(b"PK\x03\x04"):
        raise CardError("CHARX and other zip archives are not supported; upload the PNG or JSON")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CardError("file is neither a PNG character card nor JSON text") from None
    return import_json(parse_json_object(text, "JSON"), PurePath(filename).stem)


def import_json(data: dict[str, Any], name: str = "") -> tuple[WorldDefinition, list[str]]:
    """Route parsed JSON to the card, World Info or Fabula world reader; CardError otherwise."""
    kind = classify_json(data)
    if kind == "card":
        world = card_to_world(data)
    elif kind == "worldinfo":
        world = worldinfo_to_world(data, name)
    elif kind == "world":
        try:
            world = load_world(data)
        except WorldValidationError as exc:
            first = exc.errors[0] if exc.errors else "unknown problem"
            more = f" (and {len(exc.errors) - 1} more)" if len(exc.errors) > 1 else ""
            raise CardError(f"Fabula world is invalid: {first}{more}", exc.errors) from None
    else:
        raise CardError(_WRONG_SHAPE)
    return world, list(world.warnings)


def classify_json(data: dict[str, Any]) -> str:
    """'card', 'worldinfo', 'world' or 'unknown' for a parsed JSON object."""
    if data.get("spec") in CARD_SPECS:
        return "card"
    entries = data.get("entries")
    if not isinstance(entries, dict) and any(key in data for key in _FABULA_KEYS):
        return "world"
    if isinstance(entries, dict | list):
        return "worldinfo"
    if isinstance(data.get("data"), dict) or any(
        isinstance(data.get(key), str) for key in ("name", "char_name", *CARD_TEXT_FIELDS)
    ):
        return "card"
    return "unknown"
