"""The player characters of a game-master world (seed 001 "Personajes"; seed 003 "hoja
pública"): the public sheet any NPC may know, the full sheet only its player reads, abilities,
resources and the journal. ``engine.gm.world`` re-exports them with the rest of the block."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engine.gm.translations import FullSheetWords, SheetWords, translations_field
from engine.gm.vocab import Check, GMSchema, Id

__all__ = ["Abilities", "Character", "FullSheet", "JournalEntry", "PublicSheet", "Resource"]


class PublicSheet(GMSchema):
    """What a typical NPC would know (seed 003): appearance and reputation."""

    appearance: str = ""
    reputation: str = ""
    translations: dict[str, SheetWords] = translations_field()


class FullSheet(GMSchema):
    character_class: str = Field(default="", alias="class")
    traits: list[str] = Field(default_factory=list)
    background: str = ""
    secrets: list[str] = Field(default_factory=list)
    translations: dict[str, FullSheetWords] = translations_field()


class Abilities(GMSchema):
    strength: int = Field(default=10, ge=1, le=30)
    dexterity: int = Field(default=10, ge=1, le=30)
    constitution: int = Field(default=10, ge=1, le=30)
    intelligence: int = Field(default=10, ge=1, le=30)
    wisdom: int = Field(default=10, ge=1, le=30)
    charisma: int = Field(default=10, ge=1, le=30)


class Resource(GMSchema):
    current: int = Field(default=0, ge=0)
    max: int = Field(default=0, ge=0)


class JournalEntry(GMSchema):
    kind: Literal["note", "notice", "quest", "clue"] = "note"
    ref: str | None = None  # the notice, quest or clue id
    title: str = ""
    text: str = ""
    day: int = Field(default=1, ge=1)


class Character(GMSchema):
    id: Id
    name: str = Field(min_length=1)
    player: str = ""
    location: str
    point: str | None = None
    public: PublicSheet = Field(default_factory=PublicSheet)
    full: FullSheet = Field(default_factory=FullSheet)
    hp: int = Field(default=10, ge=0, le=10_000)
    max_hp: int = Field(default=10, ge=1, le=10_000)
    ac: int = Field(default=10, ge=0, le=40)
    abilities: Abilities = Field(default_factory=Abilities)
    proficiency_bonus: int = Field(default=2, ge=0, le=10)
    proficiencies: list[Check] = Field(default_factory=list)
    resources: dict[str, Resource] = Field(default_factory=dict)
    conditions: list[str] = Field(default_factory=list)
    money: int = Field(default=0, ge=0, le=1_000_000_000)
    in_hand: str | None = None  # an item it holds
    journal: list[JournalEntry] = Field(default_factory=list)
    # NPC ids whose name it knows; another character's id: they know each other (issue 33 §5)
    known_names: list[str] = Field(default_factory=list)
    known_places: list[str] = Field(default_factory=list)
