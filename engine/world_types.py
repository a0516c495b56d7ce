"""Shared vocabulary of the world format (seed 004 "世界 Schema"): bounds, ids, enums, conditions.

Every part of `engine.world` (entries and variables, rules and reactions, presentation, the
definition itself) builds on these names, so they live apart from any one part; this module
imports no other part of the format, which keeps the parts free of import cycles.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

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


class FieldError(ValueError):
    """A model-level check that belongs to one field: its path gets ``.<field>`` appended."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
