"""What one character perceives, as types with no room for a secret (seed 001 "El contexto: poco
y justo"; seed 003: the narrating side "genuinely does not know the secrets").

These are the only types ``engine.gm.perception.scene_context`` reads. None of them has a field
for an NPC's secret, a hidden point, a withheld disclosure's text, the campaign's GM notes or a
character's full sheet: a secret cannot reach the master's context by mistake, because there is
nowhere to put it. ``perceive`` is the one projector from the full block to these views.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.gm.world import TrustLevel

Band = Literal["seen", "heard", "nearby"]  # decision 5


@dataclass(frozen=True)
class SelfView:
    """The acting character: what drives suggestions (class, traits, what is in hand)."""

    id: str
    name: str
    character_class: str
    traits: tuple[str, ...]
    appearance: str
    reputation: str
    hp: int
    max_hp: int
    conditions: tuple[str, ...]
    money: int
    in_hand: str | None
    carrying: tuple[str, ...]


@dataclass(frozen=True)
class PlaceView:
    id: str
    name: str
    description: str
    alarm: str | None
    point: str | None  # the point the character stands at


@dataclass(frozen=True)
class PointView:
    id: str
    name: str
    description: str
    band: Band = "seen"


@dataclass(frozen=True)
class ThingView:
    id: str
    name: str
    where: str | None  # the point it lies at
    band: Band = "seen"


@dataclass(frozen=True)
class WithheldView:
    """That an NPC keeps something back, and from whom it would not: never what."""

    secret: bool
    would_tell: str


@dataclass(frozen=True)
class NpcView:
    id: str
    label: str  # its name once known, else its trade
    name_known: bool
    trade: str
    public_description: str
    manner: str
    point: str | None
    trust: TrustLevel
    tone: str
    tells: tuple[str, ...]
    withholds: tuple[WithheldView, ...]
    down: bool = False
    band: Band = "seen"


@dataclass(frozen=True)
class PersonView:
    """Another player character: its public sheet only (seed 003)."""

    id: str
    name: str
    appearance: str
    reputation: str
    band: Band = "seen"
    name_known: bool = True  # whether the character in the scene knows his name (issue 33 §5)


@dataclass(frozen=True)
class WayView:
    direction: str
    to_id: str
    to_name: str
    locked: bool
    band: Band = "nearby"


@dataclass(frozen=True)
class SoundView:
    text: str
    band: Band = "heard"


@dataclass(frozen=True)
class ClueView:
    id: str
    name: str
    text: str | None  # None until the check it waits for is passed
    needs: str | None


@dataclass(frozen=True)
class EventView:
    day: int
    time_of_day: str
    text: str
    band: Band


@dataclass(frozen=True)
class PendingView:
    verb: str
    check: str | None
    dc: int | None
    target: str | None


@dataclass(frozen=True)
class SceneView:
    me: SelfView
    place: PlaceView
    day: int
    time_of_day: str
    points: tuple[PointView, ...] = ()
    things: tuple[ThingView, ...] = ()
    ways: tuple[WayView, ...] = ()
    npcs: tuple[NpcView, ...] = ()
    people: tuple[PersonView, ...] = ()
    sounds: tuple[SoundView, ...] = ()
    clues: tuple[ClueView, ...] = ()
    errands: tuple[str, ...] = ()
    journal: tuple[str, ...] = ()  # quests with status, clues known, debts (issue 33 §1)
    events: tuple[EventView, ...] = ()
    no_witness: bool = False
    pending: PendingView | None = None
