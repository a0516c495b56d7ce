"""The optional ``gameMaster`` block of a world (seed 001 "El máster IA"; GAME_MASTER.md §1 and
decision 26).

Locations with exits and (hidden) points, items and who holds them, NPCs with their secret,
disclosures by trust and daily schedule, clues and what it takes to get them, errands and the
notice boards, shops, debts and pawns, the player characters' public and full sheets, and the
game clock. Same conventions as ``engine.world``: snake_case attributes, camelCase JSON, kebab-case
ids, references by id, unknown keys kept. Cross references (an exit to a missing location, an
item in two places…) are checked by ``engine.gm.lint``, which ``engine.world.load_world`` runs.

This module must not import ``engine.world``, which imports it.
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from engine.gm.characters import (
    Abilities,
    Character,
    FullSheet,
    JournalEntry,
    PublicSheet,
    Resource,
)
from engine.gm.progress import (
    Anchor,
    Board,
    CheckRequirement,
    Clue,
    ClueRequirement,
    ConditionRequirement,
    Debt,
    HandIn,
    Hook,
    HookTrigger,
    ItemRequirement,
    Notice,
    Pawn,
    Quest,
    Requirement,
    Reward,
    Rumour,
    Shop,
    Stock,
    TrustRequirement,
    Wanted,
)
from engine.gm.translations import NounWords, NpcWords, PlaceWords, translations_field
from engine.gm.vocab import (
    ABILITIES,
    DIRECTIONS,
    SKILLS,
    TIMES_OF_DAY,
    TRUST_LEVELS,
    Ability,
    Check,
    DiceNotation,
    Direction,
    GMSchema,
    Id,
    Skill,
    TimeOfDay,
    TrustLevel,
    one_of,
)

__all__ = [
    "ABILITIES",
    "DIRECTIONS",
    "SKILLS",
    "TIMES_OF_DAY",
    "TRUST_LEVELS",
    "Abilities",
    "Ability",
    "Anchor",
    "Board",
    "Character",
    "Check",
    "CheckRequirement",
    "Clue",
    "ClueRequirement",
    "ConditionRequirement",
    "Debt",
    "Direction",
    "FullSheet",
    "GMSchema",
    "HandIn",
    "Hook",
    "HookTrigger",
    "ItemRequirement",
    "JournalEntry",
    "Notice",
    "Pawn",
    "PublicSheet",
    "Quest",
    "Requirement",
    "Resource",
    "Reward",
    "Rumour",
    "Shop",
    "Skill",
    "Stock",
    "TimeOfDay",
    "TrustLevel",
    "TrustRequirement",
    "Wanted",
]


# --- settings, clock, campaign ---------------------------------------------------------------


class GMSettings(GMSchema):
    tool_cap: int = Field(default=8, ge=1, le=64)  # decision 13
    daily_quota: int = Field(default=200, ge=0, le=100_000)  # per character, live model only
    directors: bool = False  # false: one tool-calling master; true: the three directors
    short_rest: int = Field(default=1, ge=0, le=8)  # times of day a short rest takes (decision 2)
    long_rest: int = Field(default=2, ge=0, le=8)  # times of day a long rest takes
    actor_model: bool = False  # seed 001 ACTOR_MODEL: a second call plays the NPC's lines


class GameClock(GMSchema):
    """Only the engine advances it (decision 2)."""

    day: int = Field(default=1, ge=1, le=1_000_000)
    time_of_day: TimeOfDay = "morning"


class Campaign(GMSchema):
    notes: str = ""  # read on demand (get_campaign_notes)
    gm_notes: str = ""  # the Story Director's only: never in a scene context
    session_plan: str = ""
    state: str = ""


# --- space --------------------------------------------------------------------------------


class FoundBy(GMSchema):
    check: Check
    dc: int = Field(ge=5, le=30)


class Exit(GMSchema):
    direction: Direction
    to: str
    locked: bool = False
    key: Id | None = Field(default=None, exclude_if=lambda key: key is None)  # opens the lock
    hidden: bool = False
    found_by: FoundBy | None = None  # how a search finds a hidden exit
    travel: int = Field(default=0, ge=0, le=8)  # times of day the way takes (decision 2)
    carries_sound: bool = False  # loud events are heard through it (decision 5)


class Point(GMSchema):
    id: Id
    name: str = Field(min_length=1)
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    translations: dict[str, NounWords] = translations_field()  # engine.gm.translations


class HiddenPoint(Point):
    found_by: FoundBy


class Gatherable(GMSchema):
    """Something a character can gather here (seed 001 "recolectar"): herbs, firewood, fish.
    It fills the character's resource of that name, ``per_day`` at most per game day."""

    resource: str = Field(min_length=1)
    name: str = ""  # how it is shown; the resource name when empty
    per_day: int = Field(default=3, ge=1, le=1000)


class Location(GMSchema):
    id: Id
    name: str = Field(min_length=1)
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    witness: bool = False  # onlookers are always about (a busy square): never "no witness"
    alarm: str | None = None  # fire, collapse… (talk slot A)
    ambient: list[str] = Field(default_factory=list)
    exits: list[Exit] = Field(default_factory=list)
    points: list[Point] = Field(default_factory=list)
    hidden_points: list[HiddenPoint] = Field(default_factory=list)
    gatherables: list[Gatherable] = Field(default_factory=list)
    translations: dict[str, PlaceWords] = translations_field()


# --- items ----------------------------------------------------------------------------------


class Holder(GMSchema):
    """Where an item is: a location (optionally one of its points), an NPC or a character."""

    location: str | None = None
    point: str | None = None
    npc: str | None = None
    character: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Holder:
        holders = one_of(self, ("location", "npc", "character"))
        if len(holders) != 1:
            raise ValueError("must name exactly one of location, npc or character")
        if self.point is not None and self.location is None:
            raise ValueError("point needs a location")
        return self

    @property
    def key(self) -> tuple[str, str]:
        """("location", id), ("npc", id) or ("character", id)."""
        kind = one_of(self, ("location", "npc", "character"))[0]
        return kind, str(getattr(self, kind))


class Item(GMSchema):
    id: Id
    name: str = Field(min_length=1)
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    weight: float = Field(default=0, ge=0, le=1_000_000)
    value: int = Field(default=0, ge=0, le=1_000_000_000)
    # what sort of thing (food, drink, gear…): prices and traders' wants go by it (issue 33)
    kind: str = Field(default="", exclude_if=lambda kind: not kind)
    damage: DiceNotation | None = None  # a weapon's damage dice
    finesse: bool = False  # a finesse weapon hits with dexterity when it is better
    at: Holder | None = None  # None: not in play yet (a reward, a shop's restock)
    translations: dict[str, NounWords] = translations_field()


# --- NPCs -----------------------------------------------------------------------------------


class Secret(GMSchema):
    text: str = Field(min_length=1)
    tells_to: str = ""  # to whom it would tell it: shown in the context, the text never
    reveal_at_trust: TrustLevel = "ally"  # decision 11


class Place(GMSchema):
    location: str
    point: str | None = None


class ScheduleSlot(Place):
    time_of_day: TimeOfDay
    activity: str = ""


class Memory(GMSchema):
    about: str  # a character id
    text: str
    importance: int = Field(default=1, ge=1, le=3)
    day: int = Field(default=1, ge=1)


class TrustMoves(GMSchema):
    """How far each move of seed 001 shifts the trust score (decision 19)."""

    fulfil_quest: int = 20
    give_needed: int = 10
    help_people: int = 15
    flatter: int = 5
    persuade: int = 10
    chat_again: int = 3
    intimidate: int = -15
    attack: int = -40
    attack_people: int = -30
    insult: int = -15
    harass: int = -10
    caught_lying: int = -25
    crime_seen: int = -30


class Npc(GMSchema):
    id: Id
    name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    kind: Literal["person", "animal", "filler"] = "person"
    trade: str = ""  # how a stranger names it: "innkeeper"
    description: str = ""  # its manner, for voicing
    public_description: str = ""  # what anyone sees
    motivation: str = ""
    situation: str = ""
    secret: Secret | None = None
    location: str | None = None  # where it starts; the schedule wins at its times
    home: str | None = None
    fixed_place: Place | None = None
    schedule: list[ScheduleSlot] = Field(default_factory=list)
    people: list[str] = Field(default_factory=list)  # its own: family, friends, crew
    needs: list[str] = Field(default_factory=list)  # item ids: giving it one raises trust
    concerns: list[str] = Field(default_factory=list)
    knows: list[str] = Field(default_factory=list)  # characters it already knows
    disclosures: dict[TrustLevel, str] = Field(default_factory=dict)  # told from that level up
    start_trust: TrustLevel = "stranger"
    trust: dict[str, TrustLevel] = Field(default_factory=dict)  # character id → start level
    trust_moves: TrustMoves = Field(default_factory=TrustMoves)
    dislikes_flattery: bool = False
    memories: list[Memory] = Field(default_factory=list)
    ac: int = Field(default=10, ge=0, le=40)
    hp: int = Field(default=4, ge=0, le=10_000)
    translations: dict[str, NpcWords] = translations_field()


# --- characters ----------------------------------------------------------------------------


# --- money ----------------------------------------------------------------------------------

Price = Annotated[int, Field(ge=0, le=1_000_000_000)]


class Prices(GMSchema):
    """The world's price list (issue 33 §1): an item's price is its shop's, else ``items[id]``,
    else ``kinds[item.kind]``, else its ``value``. Money is a number the engine owns."""

    items: dict[str, Price] = Field(default_factory=dict)
    kinds: dict[str, Price] = Field(default_factory=dict)


# --- the block --------------------------------------------------------------------------------


class GameMaster(GMSchema):
    settings: GMSettings = Field(default_factory=GMSettings)
    clock: GameClock = Field(default_factory=GameClock)
    campaign: Campaign = Field(default_factory=Campaign)
    locations: list[Location] = Field(default_factory=list)
    items: list[Item] = Field(default_factory=list)
    npcs: list[Npc] = Field(default_factory=list)
    clues: list[Clue] = Field(default_factory=list)
    quests: list[Quest] = Field(default_factory=list)
    boards: list[Board] = Field(default_factory=list)
    shops: list[Shop] = Field(default_factory=list)
    prices: Prices = Field(default_factory=Prices, exclude_if=lambda p: not (p.items or p.kinds))
    debts: list[Debt] = Field(default_factory=list)
    pawns: list[Pawn] = Field(default_factory=list)
    hooks: list[Hook] = Field(default_factory=list)
    rumours: list[Rumour] = Field(default_factory=list)
    characters: list[Character] = Field(default_factory=list)

    @cached_property
    def locations_by_id(self) -> dict[str, Location]:
        return {x.id: x for x in self.locations}

    @cached_property
    def items_by_id(self) -> dict[str, Item]:
        return {x.id: x for x in self.items}

    @cached_property
    def npcs_by_id(self) -> dict[str, Npc]:
        return {x.id: x for x in self.npcs}

    @cached_property
    def clues_by_id(self) -> dict[str, Clue]:
        return {x.id: x for x in self.clues}

    @cached_property
    def quests_by_id(self) -> dict[str, Quest]:
        return {x.id: x for x in self.quests}

    @cached_property
    def characters_by_id(self) -> dict[str, Character]:
        return {x.id: x for x in self.characters}


def game_master_json_schema() -> dict[str, Any]:
    """The JSON Schema of the block, as committed in docs/game-master.schema.json."""
    schema = GameMaster.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://fabula.invalid/schemas/game-master.schema.json",
        "title": "Fabula world: the gameMaster block",
        **{k: v for k, v in schema.items() if k != "title"},
    }
