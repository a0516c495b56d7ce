"""Entries and variables of a world (seed 004 "世界 Schema", seed 002 "变量").

They are the parts a prompt is assembled from and a session's state is made of; kept apart from
rules and presentation so each part of the format reads on its own (`engine.world` gathers them).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field, model_validator

from engine.world_types import (
    MAX_ENTRY_CONTENT,
    MAX_INT,
    ApiRole,
    Condition,
    EntryRole,
    FieldError,
    KebabId,
    Logic,
    Schema,
    SecondaryLogic,
    Section,
    VariableId,
)


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


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
