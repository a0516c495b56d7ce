"""What the Scene Director may be told, as types with no room for a secret (seed 003: the Scene
Director "genuinamente no conoce los secretos … No porque se le dijera que no, sino porque esa
información físicamente no está ahí"; GAME_MASTER.md SW-13, SW-15).

These frozen dataclasses are the only input of ``engine.gm.directors.stage.scene_request``.
None of them has a field for the campaign's GM notes, session plan or state, a character's full
sheet (class, traits, background, secrets), an NPC's secret or a disclosure above its current
trust, a hidden point not found, the Story Director's private notes, or a scene an NPC was not
in. ``engine.gm.directors.projection.project_scene`` is the one function that builds them from
the full world. The one field that may carry a secret's words is ``PublicNpcSheet.knows``: what
that NPC witnessed being revealed in play (seed 003 "el conocimiento individual de un secreto
por parte de un PNJ queda registrado"), filled only from the engine's record of revelations.
Every field is a string, a number, a flag, a tuple or another type of this module, so nothing
else can ride along (``tests/engine/gm/directors/test_public.py`` walks them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PublicCampaign:
    """The campaign files without the GM notes: its title and the public background."""

    title: str
    notes: str


@dataclass(frozen=True)
class PublicCharacterSheet:
    """What a typical NPC would know of a player character (seed 003): appearance, reputation,
    what it holds in hand, its visible state."""

    id: str
    name: str
    appearance: str
    reputation: str
    in_hand: str | None
    conditions: tuple[str, ...]
    wounded: bool


@dataclass(frozen=True)
class PublicMemory:
    day: int
    importance: int
    about: str  # the character's name
    text: str


@dataclass(frozen=True)
class PublicSceneSummary:
    """A scene the NPC was in, told only through what it perceived there."""

    heading: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class PublicNpcSheet:
    """An NPC of the scene, without its secret: how it looks and talks, what it wants, what it
    would tell the character at its current trust, that it keeps something back (never what),
    what it witnessed being revealed, its memories and the scenes it was in."""

    id: str
    name: str  # its own name: it knows it
    label: str  # how the character names it (by trade until he knows the name)
    name_known: bool
    trade: str
    looks: str
    manner: str
    motivation: str
    situation: str
    concerns: tuple[str, ...]
    people: tuple[str, ...]
    point: str | None
    down: bool
    trust: str
    tone: str
    tells: tuple[str, ...]
    keeps_back: tuple[str, ...]  # to whom it would tell what it keeps back
    knows: tuple[str, ...]  # secrets revealed in its presence (see the module docstring)
    memories: tuple[PublicMemory, ...]  # the latest
    older_memories: tuple[PublicMemory, ...]  # found by the memory search
    scenes: tuple[PublicSceneSummary, ...]  # the latest scenes it was in


@dataclass(frozen=True)
class PublicLocation:
    """The place: what anyone standing there perceives."""

    id: str
    name: str
    description: str
    point: str | None  # where the character stands
    alarm: str | None
    points: tuple[str, ...]  # names, hidden ones only once found
    things: tuple[str, ...]
    ways: tuple[str, ...]  # "north: the square"
    sounds: tuple[str, ...]


@dataclass(frozen=True)
class PublicSynopsis:
    """The Story Director's synopsis once the engine checked it (ids, redaction)."""

    prose: str
    npcs: tuple[str, ...]
    location: str
    new_scene: bool


@dataclass(frozen=True)
class PublicTurnLine:
    """One earlier turn of this scene as the Scene Director played it."""

    input: str
    narration: str
    mechanics: tuple[str, ...]


@dataclass(frozen=True)
class PublicTurn:
    """This turn: the player's words and what the engine did that the people here perceived."""

    action: str
    mechanics: tuple[str, ...]


@dataclass(frozen=True)
class SceneDirectorInput:
    """Everything the Scene Director's request is built from (SW-13's six inputs and the turn)."""

    language: str
    day: int
    time_of_day: str
    campaign: PublicCampaign
    character: PublicCharacterSheet
    others: tuple[PublicCharacterSheet, ...]  # other player characters present
    location: PublicLocation
    npcs: tuple[PublicNpcSheet, ...]
    synopsis: PublicSynopsis
    history: tuple[PublicTurnLine, ...]  # this scene so far
    turn: PublicTurn
