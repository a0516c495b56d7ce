"""The words of the ``gameMaster`` block (seed 001; GAME_MASTER.md decision 26): its base model,
kebab-case ids, dice notation, and the closed vocabularies: trust levels (seed 001 "Trato"),
times of day, directions, SRD 5.1 abilities and skills.

Kept apart from ``engine.gm.world`` so that the block's parts can share them without cycles.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_DICE = re.compile(r"^\s*(\d{0,3})d(\d{1,3})\s*(?:([+-])\s*(\d{1,4}))?\s*$", re.I)


def _kebab(value: str) -> str:
    if not _KEBAB.match(value):
        raise ValueError("must be kebab-case (lowercase letters, digits and single hyphens)")
    return value


def _dice(value: str) -> str:
    match = _DICE.match(value)
    if not match or int(match.group(2)) < 1 or (match.group(1) and int(match.group(1)) < 1):
        raise ValueError(f"'{value}' is not dice notation like 1d8, 2d6+3 or d20-1")
    return value


Id = Annotated[str, AfterValidator(_kebab)]
DiceNotation = Annotated[str, AfterValidator(_dice)]

TrustLevel = Literal["hostile", "wary", "stranger", "acquaintance", "friend", "ally"]
TimeOfDay = Literal["morning", "afternoon", "evening", "night"]
Direction = Literal[
    "north",
    "south",
    "east",
    "west",
    "northeast",
    "northwest",
    "southeast",
    "southwest",
    "up",
    "down",
    "in",
    "out",
]
Ability = Literal["strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"]
Skill = Literal[
    "acrobatics",
    "animal-handling",
    "arcana",
    "athletics",
    "deception",
    "history",
    "insight",
    "intimidation",
    "investigation",
    "medicine",
    "nature",
    "perception",
    "performance",
    "persuasion",
    "religion",
    "sleight-of-hand",
    "stealth",
    "survival",
]
Check = Skill | Ability  # a skill check, or a plain ability check

TRUST_LEVELS: tuple[TrustLevel, ...] = get_args(TrustLevel)
TIMES_OF_DAY: tuple[TimeOfDay, ...] = get_args(TimeOfDay)
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)
ABILITIES: tuple[Ability, ...] = get_args(Ability)
SKILLS: tuple[Skill, ...] = get_args(Skill)


class GMSchema(BaseModel):
    """Base of every part of the block: camelCase in JSON, unknown keys kept."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


def one_of(model: BaseModel, names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` are set on ``model``."""
    return [name for name in names if getattr(model, name) is not None]
