"""Checking a call's arguments against its tool's JSON Schema (seed 001 "Motor valida"), with
errors the master can act on, in the turn's language.

Only the part of JSON Schema the tools use: ``type`` (object, string, integer, boolean, array),
``properties``, ``required``, ``enum``, ``items``, ``minItems``/``maxItems``,
``minimum``/``maximum`` and ``minLength``/``maxLength``. Unknown arguments are ignored (lenient by
contract, like every parser of the engine); a missing or mistyped one is an error.
"""

from __future__ import annotations

from typing import Any

from engine.gm.phrasebook import Phrasebook

_TYPES = {
    "object": dict,
    "string": str,
    "boolean": bool,
    "array": list,
}


def check_arguments(args: Any, schema: dict[str, Any], words: Phrasebook) -> list[str]:
    """The problems of ``args`` against ``schema``, one narratable line each (empty: valid)."""
    problems: list[str] = []
    _check(args, schema, "", words, problems)
    return problems


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES.get(kind, object))


def _check(
    value: Any, schema: dict[str, Any], path: str, words: Phrasebook, out: list[str]
) -> None:
    kind = schema.get("type")
    field = path or "arguments"
    if isinstance(kind, str) and not _is(value, kind):
        out.append(words.t("arg_type", field=field, kind=words.t(f"kind_{kind}")))
        return
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(str(x) for x in schema["enum"])
        out.append(words.t("arg_enum", field=field, options=options))
        return
    if kind == "object":
        _object(value, schema, path, words, out)
    elif kind == "array":
        _array(value, schema, path, words, out)
    elif kind == "string":
        _string(value, schema, field, words, out)
    elif kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            out.append(words.t("arg_range", field=field, min=low, max=high))


def _object(
    value: dict[str, Any], schema: dict[str, Any], path: str, words: Phrasebook, out: list[str]
) -> None:
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if value.get(name) is None:
            out.append(words.t("arg_missing", field=_join(path, name)))
    for name, sub in properties.items():
        given = value.get(name)
        if given is not None and not (given == "" and name not in schema.get("required", [])):
            _check(given, sub, _join(path, name), words, out)


def _array(
    value: list[Any], schema: dict[str, Any], path: str, words: Phrasebook, out: list[str]
) -> None:
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    if len(value) < low or (high is not None and len(value) > high):
        out.append(words.t("arg_items", field=path, min=low, max=high if high is not None else "∞"))
        return
    for index, item in enumerate(value):
        _check(item, schema.get("items", {}), f"{path}[{index}]", words, out)


def _string(
    value: str, schema: dict[str, Any], field: str, words: Phrasebook, out: list[str]
) -> None:
    if len(value.strip()) < schema.get("minLength", 1):
        out.append(words.t("arg_empty", field=field))
    elif len(value) > schema.get("maxLength", 10_000):
        out.append(words.t("arg_length", field=field, max=schema["maxLength"]))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
