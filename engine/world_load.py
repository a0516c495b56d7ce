"""Loading and validating a world (seed 004 "世界 Schema"): JSON in, a definition or every error.

Kept apart from the models because it is a different concern (reading sources, cross-references
between parts, turning pydantic's errors into ``path: message`` lines) that the models never call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.gm.lint import game_master_errors
from engine.jsonguard import MAX_JSON_DEPTH, JsonInputError, check_value, nesting_depth
from engine.world_definition import WorldDefinition
from engine.world_presentation import GameComponent
from engine.world_rules import ReactionWhen
from engine.world_types import SCHEMA_VERSION, SUPPORTED_MAJORS, Condition


def unknown_condition_variables(
    conditions: list[Condition], known: Mapping[str, Any], path: str = ""
) -> list[str]:
    """A condition naming no declared variable would silently never match: one error each."""
    return [
        f"{path}conditions[{i}].variableId: unknown variable '{c.variable_id}'"
        for i, c in enumerate(conditions)
        if c.variable_id not in known
    ]


def reference_errors(world: WorldDefinition) -> list[str]:
    """Every entry and rule condition must name a variable of the world."""
    known = world.variables_by_id
    errors: list[str] = []
    for index, entry in enumerate(world.entries):
        errors += unknown_condition_variables(entry.conditions, known, f"entries[{index}].")
    for index, rule in enumerate(world.rules):
        errors += unknown_condition_variables(rule.conditions, known, f"rules[{index}].")
    errors += game_master_errors(world.game_master, known)  # engine.gm.lint
    return errors


class WorldValidationError(ValueError):
    """A world that cannot be loaded; ``errors`` holds every problem as ``path: message``."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("invalid world:\n" + "\n".join(f"  {e}" for e in errors))


WorldSource = str | bytes | PathLike[str] | Mapping[str, Any]
_M = TypeVar("_M", bound=BaseModel)


def load_world(source: WorldSource, *, check_references: bool = True) -> WorldDefinition:
    """Load and validate a world from JSON text, a dict or a file path.

    Raises WorldValidationError listing every problem with its JSON path; never anything else.
    ``check_references=False`` skips ``reference_errors`` (``engine.lint`` reports them itself).
    """
    data = _read_source(source)
    if not isinstance(data, dict):
        raise WorldValidationError([f"$: must be a JSON object, got {_json_type(data)}"])
    _check_json(data, strict=False)
    errors = _duplicate_id_errors(data)
    world: WorldDefinition | None = None
    try:
        world = WorldDefinition.model_validate(data)
    except ValidationError as exc:
        errors.extend(_format_error(err, data) for err in exc.errors())
    if errors or world is None:
        raise WorldValidationError(_dedupe(errors))
    if check_references and (references := reference_errors(world)):
        raise WorldValidationError(references)
    world._warnings = _compat_warnings(world, data)
    return world


def validate_part(model: type[_M], data: Any) -> _M:
    """Validate one part of a world (an entry, a rule, the settings…) from its JSON form.

    Raises WorldValidationError with paths relative to the part (``section: must be one of …``).
    """
    if not isinstance(data, Mapping):
        raise WorldValidationError([f"$: must be a JSON object, got {_json_type(data)}"])
    _check_json(dict(data))
    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        raise WorldValidationError(
            _dedupe([_format_error(err, dict(data)) for err in exc.errors()])
        ) from None


# --- loading helpers ---------------------------------------------------------------------


def _read_source(source: WorldSource) -> Any:
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, bytes):
        source = source.decode("utf-8", errors="replace")
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        return _parse_json(source, "world JSON")
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise WorldValidationError([f"{path}: cannot read file: {reason}"]) from None
    return _parse_json(text, str(path))


def _check_json(data: dict[str, Any], *, strict: bool = True) -> None:
    # Before pydantic: kept extras deeper than ~255 levels cannot even be dumped; a part written
    # by a creator (``strict``) must also be storable: no NUL, no NaN (docs/LIMITS.md).
    try:
        check_value(data, allow_nan=not strict, allow_nul=not strict)
    except JsonInputError as exc:
        raise WorldValidationError([str(exc)]) from None


def _parse_json(text: str, what: str) -> Any:
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise WorldValidationError([f"$: {what} is nested deeper than {MAX_JSON_DEPTH} levels"])
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise WorldValidationError(
            [f"$: {what} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"]
        ) from None


def _json_type(value: Any) -> str:
    names = {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _duplicate_id_errors(data: dict[str, Any]) -> list[str]:
    errors = []
    for key in ("entries", "variables", "rules", "reactions", "audioTracks", "conditionalBGM"):
        items = data.get(key)
        if not isinstance(items, list):
            continue
        seen: dict[str, int] = {}
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                continue
            if item["id"] in seen:
                errors.append(
                    f"{key}[{index}].id: duplicate id '{item['id']}' "
                    f"(first used at {key}[{seen[item['id']]}])"
                )
            else:
                seen[item["id"]] = index
    return errors


def _format_error(err: Any, data: Any) -> str:
    path = _format_path(err["loc"], data)
    field = getattr((err.get("ctx") or {}).get("error"), "field", None)
    if isinstance(field, str):  # a FieldError names the field the model-level check is about
        path = field if path == "$" else f"{path}.{field}"
    return f"{path}: {_format_message(err)}"


def _format_path(loc: tuple[Any, ...], data: Any) -> str:
    """Render a pydantic location as a JSON path, dropping discriminator tags.

    Tagged unions add the tag value to the location (``trigger.keyword.keywords``); walking the
    input alongside tells a real key from such a tag.
    """
    out = ""
    node = data
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            node = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            continue
        if isinstance(node, dict) and part not in node and node.get("type") == part:
            continue
        if part.endswith("]") or part.startswith("function-"):
            continue
        out += f".{part}" if out else part
        node = node.get(part) if isinstance(node, dict) else None
    return out or "$"


def _format_message(err: Any) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "literal_error":
        options = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return "must be one of " + ", ".join(options)
    if kind == "missing":
        return "is required"
    if kind == "union_tag_invalid":
        options = re.findall(r"'([^']*)'", str(ctx.get("expected_tags", "")))
        return f"unknown type '{ctx.get('tag')}'; must be one of " + ", ".join(options)
    if kind == "union_tag_not_found":
        return "type is required"
    if kind == "int_parsing_size":  # 1e30 where an integer goes
        return "is out of range (too large a number)"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    message = str(err["msg"])
    return message[0].lower() + message[1:] if message else kind


def _dedupe(errors: list[str]) -> list[str]:
    return list(dict.fromkeys(errors))


def _compat_warnings(world: WorldDefinition, data: dict[str, Any]) -> list[str]:
    warnings = []
    major = world.version.split(".", 1)[0]
    if not major.isdigit() or int(major) not in SUPPORTED_MAJORS:
        warnings.append(f"version: schema {world.version} is not 20.x; loaded as {SCHEMA_VERSION}")
    elif int(major) > 20:
        warnings.append(f"version: schema {world.version} is newer than {SCHEMA_VERSION}")
    warnings.extend(f"{path}: unknown field kept" for path in _unknown_fields(world, ""))
    return warnings


# Fields the SillyTavern interop keeps on purpose (engine.interop): known, never "unknown".
INTEROP_FIELDS = frozenset({"stCard", "stExtensions", "stField"})


def _unknown_fields(model: BaseModel, path: str) -> list[str]:
    extras = [k for k in (model.model_extra or {}) if k not in INTEROP_FIELDS]
    found = [f"{path}.{k}" if path else k for k in extras]
    for name in type(model).model_fields:
        value = getattr(model, name)
        alias = type(model).model_fields[name].alias or name
        here = f"{path}.{alias}" if path else alias
        if isinstance(value, BaseModel):
            found.extend(_unknown_fields(value, here))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel) and not isinstance(item, ReactionWhen):
                    found.extend(_unknown_fields(item, f"{here}[{i}]"))
    if isinstance(model, ReactionWhen | GameComponent):
        return []
    return found
