"""What changes in play in a game-master world (seed 001; GAME_MASTER.md §1.4, decisions 2, 10).

``GMState`` is plain JSON inside ``engine.session.SessionState.gm``, so the session's usual commit
path saves it and a failed turn throws its copy away. It holds what the engine owns: where each
character is, who holds each item, the game clock (only the engine advances it), trust scores,
discovered hidden points, journals, known names, the event log, debts and pawns, the pending
check of each character and the dice seed with its roll counter (so a replay rolls the same).
Daily action counts per character live on the Django side.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.gm.directors.records import DirectorMemo
from engine.gm.world import (
    TIMES_OF_DAY,
    Check,
    Debt,
    GameClock,
    GameMaster,
    Holder,
    Hook,
    JournalEntry,
    Memory,
    Npc,
    Pawn,
    Place,
    Resource,
    Rumour,
)

MAX_EVENTS = 1000  # the log keeps the newest; the context only ever shows six

Advantage = Literal["normal", "advantage", "disadvantage"]


class _State(BaseModel):
    model_config = ConfigDict(extra="ignore")


class PassedCheck(_State):
    """A check a character passed, where: clue requirements of kind ``check`` read these."""

    check: Check
    total: int
    location: str
    target: str | None = None


class CharacterState(_State):
    location: str
    point: str | None = None
    previous: str | None = None  # the location it came from ("go back")
    hp: int
    max_hp: int
    conditions: list[str] = Field(default_factory=list)
    money: int = 0
    in_hand: str | None = None
    resources: dict[str, Resource] = Field(default_factory=dict)
    journal: list[JournalEntry] = Field(default_factory=list)
    known_names: list[str] = Field(default_factory=list)
    known_places: list[str] = Field(default_factory=list)
    discovered: list[str] = Field(default_factory=list)  # "location:point", "location>direction"
    clues: list[str] = Field(default_factory=list)
    passed: list[PassedCheck] = Field(default_factory=list)
    # Game master II (tools): facts noted about him, errands done, the day of his last long rest.
    facts: list[str] = Field(default_factory=list)
    completed: list[str] = Field(default_factory=list)
    long_rest_day: int | None = None
    # Issue 33 §5: the other player characters whose names he learnt in play (engine.gm.
    # acquaintance), and how many actions he has played (a table's ``turn`` counts everyone's).
    met: list[str] = Field(default_factory=list)
    turns: int = 0


class PendingCheck(_State):
    """A risky action waiting for its roll (issue §4): the Roll button is shown for it."""

    verb: str  # the risky verb of the lexicon: attack, climb, persuade…
    kind: Literal["check", "attack"] = "check"
    check: Check | None = None
    dc: int | None = None
    target: str | None = None  # an NPC id
    item: str | None = None  # what a theft is after
    way: str | None = None  # the direction of the locked exit to force or pick
    text: str = ""  # the player's words
    language: str = "en"
    advantage: Advantage = "normal"
    hidden: bool = False


class GMEvent(_State):
    """One entry of the event log, with who perceived it and how (decision 5)."""

    id: int
    kind: str
    actor: str
    location: str
    day: int
    time_of_day: str
    text: str
    seen_by: list[str] = Field(default_factory=list)
    heard_by: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)
    at: str | None = None  # wall time, when the caller passed a clock

    def to_dict(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", by_alias=False)
        out = {_camel(k): v for k, v in data.items()}
        if out["at"] is None:
            del out["at"]
        return out


class TurnMarks(_State):
    """What the master's tools did in one turn (the turn opened by the ``action`` event ``event``),
    so that a turn cannot, say, shift the same trust twice or offer two errands."""

    event: int = 0
    marks: list[str] = Field(default_factory=list)


class DiceState(_State):
    """Every roll draws from (seed, counter): the same seed replays the same dice."""

    seed: int = 0
    counter: int = 0


class GMState(_State):
    clock: GameClock = Field(default_factory=GameClock)
    characters: dict[str, CharacterState] = Field(default_factory=dict)
    items: dict[str, Holder | None] = Field(default_factory=dict)
    npc_places: dict[str, Place] = Field(default_factory=dict)  # moved by a tool: wins
    npc_hp: dict[str, int] = Field(default_factory=dict)
    trust: dict[str, dict[str, int]] = Field(default_factory=dict)  # npc → character → score
    alarms: dict[str, str] = Field(default_factory=dict)
    unlocked: list[str] = Field(default_factory=list)  # "location>direction" opened in play
    events: list[GMEvent] = Field(default_factory=list)
    next_event: int = 1
    debts: list[Debt] = Field(default_factory=list)
    pawns: list[Pawn] = Field(default_factory=list)
    pending: dict[str, PendingCheck] = Field(default_factory=dict)  # per character
    fired_hooks: list[str] = Field(default_factory=list)
    dice: DiceState = Field(default_factory=DiceState)
    # Game master II (tools). ``memories`` holds an NPC's list once play has written to it (the
    # authored ones until then); ``revealed`` the characters each NPC told its secret to.
    memories: dict[str, list[Memory]] = Field(default_factory=dict)
    revealed: dict[str, list[str]] = Field(default_factory=dict)
    hooks: list[Hook] = Field(default_factory=list)  # seeded in play
    cancelled_hooks: list[str] = Field(default_factory=list)
    rumours: list[Rumour] = Field(default_factory=list)  # seeded in play
    gathered: dict[str, int] = Field(default_factory=dict)  # "location:resource:day" → count
    # Trade (issue 33 §1; engine.gm.market): units in an item's one stack (absent: 1), and the
    # units each shop has sold of a stocked good ("shop:item", net of what it bought back).
    counts: dict[str, int] = Field(default_factory=dict)
    sold: dict[str, int] = Field(default_factory=dict)
    turn_marks: dict[str, TurnMarks] = Field(default_factory=dict)  # per character
    # What the narrator showed each character in his last turns (engine.gm.narrator, GM-P-8).
    narrated: dict[str, list[str]] = Field(default_factory=dict)
    # The three directors (seed 003; engine.gm.directors): scenes, private notes, who knows what.
    directors: DirectorMemo = Field(default_factory=DirectorMemo)


def clone_gm_state(state: GMState) -> GMState:
    """A copy to change during an action. Logged events and item holders are replaced, never
    changed in place, so the copy shares them: a deep copy of a long log or of every holder
    would cost more than the whole move."""
    shell = state.model_copy()
    shell.events, shell.items = [], {}
    copy = shell.model_copy(deep=True)
    copy.events, copy.items = list(state.events), dict(state.items)
    return copy


def initial_gm_state(gm: GameMaster, seed: int = 0) -> GMState:
    """The state a new session starts from: the block's authored positions, sheets and clock."""
    characters = {
        c.id: CharacterState(
            location=c.location,
            point=c.point,
            hp=c.hp,
            max_hp=c.max_hp,
            conditions=list(c.conditions),
            money=c.money,
            in_hand=c.in_hand,
            resources={k: v.model_copy() for k, v in c.resources.items()},
            journal=[j.model_copy() for j in c.journal],
            known_names=list(c.known_names),
            known_places=list(dict.fromkeys([*c.known_places, c.location])),
        )
        for c in gm.characters
    }
    return GMState(
        clock=gm.clock.model_copy(),
        characters=characters,
        items={i.id: i.at.model_copy() if i.at else None for i in gm.items},
        npc_hp={n.id: n.hp for n in gm.npcs},
        alarms={x.id: x.alarm for x in gm.locations if x.alarm},
        debts=[d.model_copy() for d in gm.debts],
        pawns=[p.model_copy() for p in gm.pawns],
        dice=DiceState(seed=seed),
    )


# --- reading the state ------------------------------------------------------------------------


def npc_place(gm: GameMaster, state: GMState, npc: Npc) -> Place | None:
    """Where an NPC is now: moved by a tool, else its schedule's slot, else where it stays."""
    if npc.id in state.npc_places:
        return state.npc_places[npc.id]
    for slot in npc.schedule:
        if slot.time_of_day == state.clock.time_of_day:
            return slot
    if npc.fixed_place is not None:
        return npc.fixed_place
    where = npc.location or npc.home
    return Place.model_construct(location=where, point=None) if where else None


def npcs_at(gm: GameMaster, state: GMState, location: str) -> list[Npc]:
    """The NPCs in a location now, in the block's order."""
    out = []
    for npc in gm.npcs:
        place = npc_place(gm, state, npc)
        if place is not None and place.location == location:
            out.append(npc)
    return out


def characters_at(state: GMState, location: str) -> list[str]:
    return [cid for cid, c in state.characters.items() if c.location == location]


def items_held(state: GMState, kind: str, holder: str) -> list[str]:
    """The ids of the items an NPC, a character or a location holds."""
    return [i for i, at in state.items.items() if at is not None and at.key == (kind, holder)]


def time_index(clock: GameClock) -> int:
    return clock.day * len(TIMES_OF_DAY) + TIMES_OF_DAY.index(clock.time_of_day)


def advance_clock(clock: GameClock, steps: int) -> GameClock:
    """The clock ``steps`` times of day later (the engine's, never the master's)."""
    index = time_index(clock) + max(0, steps)
    day, slot = divmod(index, len(TIMES_OF_DAY))
    return GameClock(day=day, time_of_day=TIMES_OF_DAY[slot])


def log_event(
    state: GMState,
    kind: str,
    actor: str,
    location: str,
    text: str,
    *,
    seen_by: list[str],
    heard_by: list[str] | None = None,
    data: dict[str, Any] | None = None,
    at: str | None = None,
) -> GMEvent:
    """Append an event to the log (the oldest go past ``MAX_EVENTS``) and return it."""
    event = GMEvent(
        id=state.next_event,
        kind=kind,
        actor=actor,
        location=location,
        day=state.clock.day,
        time_of_day=state.clock.time_of_day,
        text=text,
        seen_by=list(dict.fromkeys(seen_by)),
        heard_by=[x for x in dict.fromkeys(heard_by or []) if x not in seen_by],
        data=data or {},
        at=at,
    )
    state.next_event += 1
    state.events.append(event)
    if len(state.events) > MAX_EVENTS:
        del state.events[: len(state.events) - MAX_EVENTS]
    return event


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
