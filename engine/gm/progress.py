"""Progress and dealings in the ``gameMaster`` block (seed 001 "Progreso", "Tratos", "Mundo";
GAME_MASTER.md §1.2, §1.4, decisions 6, 7 and 26): clues and what it takes to get them, errands
and notice boards, shops, debts and pawns, hooks and rumours.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from engine.gm.translations import (
    ClueWords,
    NoticeWords,
    NounWords,
    QuestWords,
    TextWords,
    translations_field,
)
from engine.gm.vocab import Check, GMSchema, Id, TimeOfDay, TrustLevel, one_of

BUY_SHARE = 0.5  # what a trader pays of a price, unless told (the SRD's half)


def _none(value: Any) -> bool:
    """Fields added by issue 33 stay out of an export while unset, so that a world without
    them keeps its JSON and its content hash."""
    return not value


def _default_share(value: float) -> bool:
    return value == BUY_SHARE


# --- progress ---------------------------------------------------------------------------------


class TrustRequirement(GMSchema):
    type: Literal["trust"]
    npc: str
    at_least: TrustLevel


class ItemRequirement(GMSchema):
    type: Literal["item"]
    item: str  # held by the character


class CheckRequirement(GMSchema):
    type: Literal["check"]
    check: Check
    dc: int = Field(ge=5, le=30)


class ConditionRequirement(GMSchema):
    """The entry-condition language of seed 004, on the world's variables (decision 6)."""

    type: Literal["condition"]
    variable_id: str
    operator: Literal["eq", "neq", "gt", "lt", "gte", "lte", "contains"]
    value: Any = None


class ClueRequirement(GMSchema):
    type: Literal["clue"]
    clue: str  # another clue the character already has


Requirement = Annotated[
    TrustRequirement | ItemRequirement | CheckRequirement | ConditionRequirement | ClueRequirement,
    Field(discriminator="type"),
]


class Anchor(GMSchema):
    location: str | None = None
    npc: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Anchor:
        if len(one_of(self, ("location", "npc"))) != 1:
            raise ValueError("must name exactly one of location or npc")
        return self


class Clue(GMSchema):
    id: Id
    name: str = Field(min_length=1)
    text: str = ""
    anchor: Anchor
    requires: list[Requirement] = Field(default_factory=list)
    translations: dict[str, ClueWords] = translations_field()  # engine.gm.translations


class HandIn(GMSchema):
    """The world rule that completes an errand (issue 33 §1): ``item`` ends in the hands of
    ``to`` (the errand's owner when empty) while ``requires`` holds, whoever moves it there."""

    item: str
    to: str | None = None  # an NPC
    requires: list[Requirement] = Field(default_factory=list)


class Reward(GMSchema):
    """What completing an errand gives the character: money the engine pays, items he gets."""

    money: int = Field(default=0, ge=0, le=1_000_000_000)
    items: list[str] = Field(default_factory=list)


class Quest(GMSchema):
    id: Id
    title: str = Field(min_length=1)
    summary: str = ""  # the one line of the scene context
    description: str = ""
    owner: str | None = None  # an NPC
    offered_by: str | None = None  # an NPC, when someone else hands it out
    hand_in: HandIn | None = Field(default=None, exclude_if=_none)  # issue 33: absent if unset
    reward: Reward | None = Field(default=None, exclude_if=_none)
    translations: dict[str, QuestWords] = translations_field()


class Notice(GMSchema):
    id: Id
    title: str = Field(min_length=1)
    summary: str = ""
    owner: str | None = None
    quest: str | None = None
    translations: dict[str, NoticeWords] = translations_field()


class Board(GMSchema):
    id: Id
    name: str = "notice board"
    aliases: list[str] = Field(default_factory=list)
    location: str
    point: str | None = None
    notices: list[Notice] = Field(default_factory=list)
    translations: dict[str, NounWords] = translations_field()


class Stock(GMSchema):
    """What a trader sells: ``price`` (else the world's price list) and how many units
    (``quantity``; None: the one item itself, while he holds it)."""

    item: str
    price: int | None = Field(default=None, ge=0, le=1_000_000_000, exclude_if=_none)
    quantity: int | None = Field(default=None, ge=0, le=1_000_000, exclude_if=_none)


class Wanted(GMSchema):
    """What a trader buys: one item, or every item of a kind, at a share of its price (the
    shop's ``buyShare`` unless told)."""

    item: str | None = Field(default=None, exclude_if=_none)
    kind: str | None = Field(default=None, exclude_if=_none)
    share: float | None = Field(default=None, ge=0, le=1, exclude_if=_none)

    @model_validator(mode="after")
    def _exactly_one(self) -> Wanted:
        if len(one_of(self, ("item", "kind"))) != 1:
            raise ValueError("must name exactly one of item or kind")
        return self


class Shop(GMSchema):
    id: Id
    name: str = ""
    npc: str
    location: str
    stock: list[Stock] = Field(default_factory=list)
    buys: list[Wanted] = Field(default_factory=list, exclude_if=_none)  # besides his stock
    buy_share: float = Field(default=BUY_SHARE, ge=0, le=1, exclude_if=_default_share)


class Debt(GMSchema):
    id: Id
    debtor: str  # a character or an NPC
    creditor: str
    amount: int = Field(ge=0, le=1_000_000_000)
    due_day: int | None = Field(default=None, ge=1)
    note: str = ""


class Pawn(GMSchema):
    item: str
    owner: str  # who pawned it, and may redeem it
    held_by: str  # the NPC that holds it now
    redeem_price: int = Field(default=0, ge=0, le=1_000_000_000)
    debt: str | None = None


class HookTrigger(GMSchema):
    """Decision 7: entering a place, or a time of day (from a day on)."""

    type: Literal["enter", "time"]
    location: str | None = None
    day: int | None = Field(default=None, ge=1)
    time_of_day: TimeOfDay | None = None


class Hook(GMSchema):
    id: Id
    trigger: HookTrigger
    text: str = Field(min_length=1)  # the event it logs where it fires
    once: bool = True
    translations: dict[str, TextWords] = translations_field()


class Rumour(GMSchema):
    id: Id
    text: str = Field(min_length=1)
    heard_at: list[str] = Field(default_factory=list)
    translations: dict[str, TextWords] = translations_field()
