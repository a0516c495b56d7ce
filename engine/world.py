"""The world format: `WorldDefinition`, schema 20.0.0 (seed 004 "世界 Schema", seed 002 "变量").

Python attributes are snake_case; JSON keys are the camelCase of the seed (``behaviorRules``,
``secondaryKeywordLogic``). Unknown keys are kept (so a 21.x world survives a round trip) and
reported in ``WorldDefinition.warnings``; a variable's ``category`` is accepted and stripped, as
seed 002 says. Validation collects every problem with its JSON path instead of stopping at the
first, because a creator fixing an import wants the whole list at once.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)
from pydantic.alias_generators import to_camel

from engine.gm.lint import game_master_errors
from engine.gm.world import GameMaster
from engine.jsonguard import MAX_JSON_DEPTH, JsonInputError, check_value, nesting_depth

SCHEMA_VERSION = "20.0.0"
SUPPORTED_MAJORS = (20, 21)

RESERVED_VARIABLE_IDS = frozenset({"audio", "user", "char", "time", "date"})

# Input bounds (docs/LIMITS.md): the text one entry holds, and the integers the database's
# 32-bit columns store (positions, depths, priorities, counts).
MAX_ENTRY_CONTENT = 1_000_000
MAX_INT = 2**31 - 1

_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _kebab(value: str) -> str:
    if not _KEBAB.match(value):
        raise ValueError("must be kebab-case (lowercase letters, digits and single hyphens)")
    return value


def _not_reserved(value: str) -> str:
    if value in RESERVED_VARIABLE_IDS:
        reserved = ", ".join(sorted(RESERVED_VARIABLE_IDS))
        raise ValueError(f"'{value}' is a reserved word ({reserved})")
    return value


KebabId = Annotated[str, AfterValidator(_kebab)]
VariableId = Annotated[str, AfterValidator(_kebab), AfterValidator(_not_reserved)]

Section = Literal["system-presets", "examples", "chat-history", "post-history"]
EntryRole = Literal[
    "system",
    "character",
    "personality",
    "scenario",
    "lore",
    "plot",
    "style",
    "example",
    "greeting",
    "custom",
]
ApiRole = Literal["system", "user", "assistant"]
Operator = Literal["eq", "neq", "gt", "lt", "gte", "lte", "contains"]
Operation = Literal[
    "set", "add", "subtract", "multiply", "toggle", "append", "merge", "push", "delete"
]
Logic = Literal["all", "any"]
SecondaryLogic = Literal["AND_ANY", "AND_ALL", "NOT_ANY", "NOT_ALL"]

# The allowed values as tuples, for form choices and messages; one source of truth, the Literals.
SECTIONS: tuple[str, ...] = get_args(Section)
ENTRY_ROLES: tuple[str, ...] = get_args(EntryRole)
API_ROLES: tuple[str, ...] = get_args(ApiRole)
OPERATORS: tuple[str, ...] = get_args(Operator)
OPERATIONS: tuple[str, ...] = get_args(Operation)


def _union_tags(union: Any) -> tuple[str, ...]:
    """The ``type`` tag of each model of an ``Annotated`` discriminated union, in order."""
    members = get_args(get_args(union)[0])
    return tuple(get_args(m.model_fields["type"].annotation)[0] for m in members)


class Schema(BaseModel):
    """Base for every part of the format: camelCase in JSON, unknown keys kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        validate_assignment=False,
    )


class Condition(Schema):
    variable_id: str
    operator: Operator
    value: Any = None


class Entry(Schema):
    id: KebabId
    name: str = ""
    content: str = Field(default="", max_length=MAX_ENTRY_CONTENT)
    role: EntryRole = "custom"
    api_role: ApiRole = "system"
    section: Section = "system-presets"
    position: int = Field(default=0, ge=-MAX_INT, le=MAX_INT)
    enabled: bool = True
    keywords: list[str] = Field(default_factory=list)
    conditions: list[Condition] = Field(default_factory=list)
    condition_logic: Logic = "all"
    depth: int | None = Field(default=None, ge=0, le=MAX_INT)
    match_whole_words: bool = False
    case_sensitive: bool = False  # Fabula extension, fed by SillyTavern's case_sensitive
    secondary_keywords: list[str] = Field(default_factory=list)
    secondary_keyword_logic: SecondaryLogic = "AND_ANY"
    prevent_recursion: bool = False
    exclude_recursion: bool = False
    tags: list[str] = Field(default_factory=list)
    folder_id: str | None = None

    @property
    def always_send(self) -> bool:
        """Seed 004: every section but chat-history is sent without a keyword match."""
        return self.section != "chat-history"


class Variable(Schema):
    id: VariableId
    name: str = ""
    type: Literal["number", "string", "boolean", "json"]
    default_value: Any = None
    min: float | None = None
    max: float | None = None
    description: str = ""
    behavior_rules: str = ""

    @model_validator(mode="before")
    @classmethod
    def _strip_category(cls, data: Any) -> Any:
        if isinstance(data, dict) and "category" in data:
            data = {k: v for k, v in data.items() if k != "category"}
        return data

    @model_validator(mode="after")
    def _default_fits_type(self) -> Variable:
        value = self.default_value
        if value is None:
            self.default_value = _EMPTY_DEFAULTS[self.type]
            return self
        ok = {
            "number": isinstance(value, int | float) and not isinstance(value, bool),
            "string": isinstance(value, str),
            "boolean": isinstance(value, bool),
            "json": isinstance(value, dict | list | str | int | float | bool),
        }[self.type]
        if not ok:
            raise FieldError("defaultValue", f"must be a {self.type}, got {json.dumps(value)}")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("min must not be greater than max")
        low = self.min if self.min is not None else value
        high = self.max if self.max is not None else value
        if self.type == "number" and not low <= value <= high:
            bounds = f"{_number(self.min) if self.min is not None else '-∞'} and " + (
                _number(self.max) if self.max is not None else "∞"
            )
            raise FieldError("defaultValue", f"must be between {bounds}, got {_number(value)}")
        return self

    @property
    def display_name(self) -> str:
        return self.name or self.id


_EMPTY_DEFAULTS: dict[str, Any] = {"number": 0, "string": "", "boolean": False, "json": {}}


class FieldError(ValueError):
    """A model-level check that belongs to one field: its path gets ``.<field>`` appended."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


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


# --- rules (seed 004 "规则与响应") -------------------------------------------------------


class VariableCrossedTrigger(Schema):
    type: Literal["variable-crossed"]
    variable_id: str
    direction: Literal["rises-above", "drops-below"]
    threshold: float


class StateChangeTrigger(Schema):
    type: Literal["state-change"]
    variable_id: str | None = None


class TurnCountTrigger(Schema):
    type: Literal["turn-count"]
    at_turn: int | None = None
    every_n_turns: int | None = Field(default=None, ge=1)


class SessionStartTrigger(Schema):
    type: Literal["session-start"]


class KeywordTrigger(Schema):
    type: Literal["keyword"]
    keywords: list[str] = Field(default_factory=list)
    match_whole_words: bool = False


class AiKeywordTrigger(Schema):
    type: Literal["ai-keyword"]
    keywords: list[str] = Field(default_factory=list)
    match_whole_words: bool = False


class EveryTurnTrigger(Schema):
    type: Literal["every-turn"]


class ActionTrigger(Schema):
    type: Literal["action"]
    action_id: str


class ManualTrigger(Schema):
    type: Literal["manual"]


Trigger = Annotated[
    VariableCrossedTrigger
    | StateChangeTrigger
    | TurnCountTrigger
    | SessionStartTrigger
    | KeywordTrigger
    | AiKeywordTrigger
    | EveryTurnTrigger
    | ActionTrigger
    | ManualTrigger,
    Field(discriminator="type"),
]
TRIGGER_TYPES = _union_tags(Trigger)


class ModifyVariableAction(Schema):
    type: Literal["modify-variable"]
    variable_id: str
    operation: Operation = "set"
    value: Any = None


DirectivePosition = Literal["top", "before_char", "after_char", "auto", "depth", "bottom"]


class InjectDirectiveAction(Schema):
    type: Literal["inject-directive"]
    directive_id: str
    content: str = Field(default="", max_length=MAX_ENTRY_CONTENT)
    position: DirectivePosition = "auto"
    depth: int | None = Field(default=None, ge=0, le=MAX_INT)
    persistent: bool = False
    duration: int | None = Field(default=None, ge=1, le=MAX_INT)


class RemoveDirectiveAction(Schema):
    type: Literal["remove-directive"]
    directive_id: str


class NotifyPlayerAction(Schema):
    type: Literal["notify-player"]
    message: str = ""
    style: Literal["info", "achievement", "warning", "danger"] = "info"


class PlayAudioAction(Schema):
    type: Literal["play-audio"]
    track_id: str
    action: Literal["play", "stop", "crossfade", "volume"] = "play"
    value: float | None = None


class ToggleEntryAction(Schema):
    type: Literal["toggle-entry"]
    entry_id: str
    enabled: bool = True


class ToggleRuleAction(Schema):
    type: Literal["toggle-rule"]
    rule_id: str
    enabled: bool = True


class SendContextAction(Schema):
    type: Literal["send-context"]
    message: str = ""
    role: Literal["system", "user"] = "system"


Action = Annotated[
    ModifyVariableAction
    | InjectDirectiveAction
    | RemoveDirectiveAction
    | NotifyPlayerAction
    | PlayAudioAction
    | ToggleEntryAction
    | ToggleRuleAction
    | SendContextAction,
    Field(discriminator="type"),
]
ACTION_TYPES = _union_tags(Action)


class Rule(Schema):
    id: KebabId
    name: str = ""
    description: str = ""
    trigger: Trigger
    conditions: list[Condition] = Field(default_factory=list)
    condition_logic: Logic = "all"
    actions: list[Action] = Field(default_factory=list)
    priority: int = Field(default=0, ge=-MAX_INT, le=MAX_INT)
    enabled: bool = True
    cooldown_turns: int | None = Field(default=None, ge=0, le=MAX_INT)
    max_fire_count: int | None = Field(default=None, ge=0, le=MAX_INT)


# --- reactions ---------------------------------------------------------------------------


class ReactionWhen(Schema):
    """An event pattern: ``eventType`` plus any fields the event must carry (kept as extras)."""

    event_type: str


class SetEffect(Schema):
    type: Literal["set"]
    path: str
    value: Any = None
    operation: Operation = "set"


class EmitEffect(Schema):
    type: Literal["emit"]
    event: dict[str, Any]

    @model_validator(mode="after")
    def _event_has_type(self) -> EmitEffect:
        if not isinstance(self.event.get("type"), str) or not self.event["type"]:
            raise ValueError("event.type must be a non-empty string")
        return self


ReactionEffect = Annotated[SetEffect | EmitEffect, Field(discriminator="type")]


class Reaction(Schema):
    id: KebabId
    name: str = ""
    when: ReactionWhen
    conditions: list[Condition] = Field(default_factory=list)
    condition_logic: Logic = "all"
    then: list[ReactionEffect] = Field(default_factory=list)
    enabled: bool = True


# --- presentation ------------------------------------------------------------------------


class RootComponent(Schema):
    id: str = ""
    name: str = ""
    entry_file: str = "index.tsx"
    files: dict[str, str] = Field(default_factory=dict)
    updated_at: str | None = None

    @model_validator(mode="after")
    def _entry_file_exists(self) -> RootComponent:
        if self.files and self.entry_file not in self.files:
            raise ValueError(f"entryFile '{self.entry_file}' is not among files")
        return self


class GameComponent(Schema):
    """A built-in UI component (status bar, gauge, text); its own fields are kept as extras."""

    id: str
    type: str
    name: str = ""
    variable_id: str | None = None


class AudioTrack(Schema):
    id: KebabId
    name: str = ""
    type: Literal["bgm", "sfx", "ambient"] = "bgm"
    url: str = ""
    loop: bool = False
    volume: float = Field(default=1.0, ge=0, le=1)
    fade_in: float | None = Field(default=None, ge=0)
    fade_out: float | None = Field(default=None, ge=0)
    max_duration: float | None = Field(default=None, gt=0)


class BGMPlaylist(Schema):
    tracks: list[str] = Field(default_factory=list)
    play_mode: Literal["loop", "shuffle", "sequential"] = "loop"
    gap_seconds: float = Field(default=0, ge=0, le=30)
    auto_play: bool = True
    wait_for_first_message: bool = False


class ConditionalBGM(Schema):
    id: str
    name: str = ""
    target_track_id: str
    trigger_type: Literal["variable", "ai-keyword", "keyword", "turn-count", "session-start"] = (
        "variable"
    )
    conditions: list[Condition] = Field(default_factory=list)
    condition_logic: Logic = "all"
    keywords: list[str] = Field(default_factory=list)
    match_whole_words: bool = False
    at_turn: int | None = Field(default=None, ge=-MAX_INT, le=MAX_INT)
    every_n_turns: int | None = Field(default=None, ge=1, le=MAX_INT)
    priority: int = Field(default=0, ge=-MAX_INT, le=MAX_INT)
    fade_in_duration: float | None = Field(default=None, ge=0)
    fade_out_duration: float | None = Field(default=None, ge=0)
    stop_previous_bgm: bool = Field(default=True, alias="stopPreviousBGM")
    fallback: str = "default"


class EntryFolder(Schema):
    id: str
    name: str = ""
    parent_id: str | None = None


class Settings(Schema):
    max_tokens: int = Field(default=12000, ge=1, le=1_000_000)
    max_context: int = Field(default=200000, ge=1, le=100_000_000)
    temperature: float = Field(default=1.0, ge=0, le=2)
    top_p: float = Field(default=1, ge=0, le=1)
    frequency_penalty: float = Field(default=0, ge=-2, le=2)
    presence_penalty: float = Field(default=0, ge=-2, le=2)
    player_name: str = "User"
    lorebook_scan_depth: int = Field(default=2, ge=0, le=10_000)
    lorebook_recursion_depth: int = Field(default=0, ge=0, le=100)
    top_k: int | None = Field(default=None, ge=0, le=1_000_000)
    min_p: float | None = Field(default=None, ge=0, le=1)
    structured_output: bool = False
    # The model the creator recommends; play uses it on the site's key only where the site
    # allows that model (FABULA_SITE_MODELS). Empty: no recommendation.
    recommended_model: str = Field(default="", max_length=200)


class WorldDefinition(Schema):
    id: str = ""
    version: str = SCHEMA_VERSION
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=10000)
    author: str = ""
    language: str | None = None

    entries: list[Entry] = Field(default_factory=list)
    variables: list[Variable] = Field(default_factory=list)
    rules: list[Rule] = Field(default_factory=list)
    reactions: list[Reaction] | None = Field(default_factory=list)

    root_component: RootComponent | None = None
    components: list[GameComponent] = Field(default_factory=list)
    audio_tracks: list[AudioTrack] = Field(default_factory=list)
    bgm_playlist: BGMPlaylist | None = Field(default=None, alias="bgmPlaylist")
    conditional_bgm: list[ConditionalBGM] = Field(default_factory=list, alias="conditionalBGM")
    custom_ui: list[dict[str, Any]] = Field(default_factory=list, alias="customUI")

    entry_folders: list[EntryFolder] = Field(default_factory=list)
    custom_tags: list[str] = Field(default_factory=list)
    custom_tag_colors: dict[str, str] = Field(default_factory=dict)
    editor_mode: Literal["simple", "advanced"] = "advanced"

    settings: Settings = Field(default_factory=Settings)
    game_master: GameMaster | None = None  # seed 001: absent in plain worlds (engine.gm.world)

    _warnings: list[str] = PrivateAttr(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """What loading noticed but forgave (unknown fields, a newer schema version)."""
        return self._warnings

    @cached_property
    def variables_by_id(self) -> dict[str, Variable]:
        return {v.id: v for v in self.variables}

    @cached_property
    def entries_by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}

    @cached_property
    def rules_by_id(self) -> dict[str, Rule]:
        return {r.id: r for r in self.rules}

    @cached_property
    def tracks_by_id(self) -> dict[str, AudioTrack]:
        return {t.id: t for t in self.audio_tracks}

    @cached_property
    def content_hash(self) -> str:
        """Hash of the canonical JSON: the key of every compiled-world cache."""
        canonical = json.dumps(export_world(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def default_state(self) -> dict[str, Any]:
        """Every variable id mapped to a fresh copy of its default value."""
        return {v.id: json.loads(json.dumps(v.default_value)) for v in self.variables}


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


def export_world(world: WorldDefinition) -> dict[str, Any]:
    """Dump a world as schema JSON (camelCase keys); optional settings left unset stay absent."""
    data = world.model_dump(mode="json", by_alias=True)
    settings = data["settings"]
    for key in ("topK", "minP"):
        if settings.get(key) is None:
            settings.pop(key, None)
    if not settings.get("recommendedModel"):
        settings.pop("recommendedModel", None)
    if data.get("language") is None:
        data.pop("language", None)
    if data.get("gameMaster") is None:
        data.pop("gameMaster", None)
    return data


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
