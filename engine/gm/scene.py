"""Where a character is and what it can see and reach there (seed 001 "Motor la resuelve";
decisions 5 and 10), shared by the engine moves and the risky actions.

``Scene`` bundles one character's view of the world for one action: the block, the state, its
location, the player's lexicon (for narration) and the world's (for the event log, which every
perceiver reads). Hidden points and hidden exits are only "here" once discovered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from engine.gm import acquaintance, localize
from engine.gm.state import (
    CharacterState,
    GMEvent,
    GMState,
    characters_at,
    log_event,
    npcs_at,
    time_index,
)
from engine.gm.words import Lexicon
from engine.gm.world import Board, Exit, GameMaster, Item, Location, Npc, Point

MoveKind = Literal[
    "go",
    "back",
    "leave",
    "take",
    "drop",
    "wait",
    "board",
    "look",
    "click",
    # issue 33 §1, the read moves (engine.gm.readmoves reads them, engine.gm.sheet answers)
    "inventory",
    "sheet",
    "journal",
    "notice",
    # issue 33 §1, trade and hand-over (engine.gm.trade_read reads them; trade, handover answer)
    "buy",
    "sell",
    "give",
    "equip",
    "unequip",
    # issue 33: a lock opened with the key carried (engine.gm.locks)
    "unlock",
]
MOVE_KINDS: tuple[str, ...] = get_args(MoveKind)
ResultKind = Literal["engine", "refused", "ask"]


@dataclass(frozen=True)
class EngineMove:
    """A move the engine owns (``engine.gm.moves``); ``target`` is the normalised rest of the
    sentence."""

    kind: MoveKind
    target: str = ""
    language: str = "en"
    text: str = ""
    click: Mapping[str, str] | None = None  # {"location": id} or {"point": id}
    slots: Mapping[str, str] | None = None  # what a trade move's words named: {"item": id}


@dataclass
class MoveResult:
    """What a move did: ``engine`` (applied), ``refused`` or ``ask`` (nothing changed)."""

    kind: ResultKind
    narration: str
    events: list[GMEvent] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)
    suggestions: list[str] = field(default_factory=list)


@dataclass
class Scene:
    gm: GameMaster
    state: GMState
    character_id: str
    lex: Lexicon  # the player's language: narration
    world_lex: Lexicon  # the world's language: the event log
    at: str | None = None  # wall time for the events, when known
    values: Mapping[str, Any] | None = None  # the world's variable values (clue conditions)
    _npcs: dict[tuple[str, int], list[Npc]] = field(default_factory=dict, repr=False)
    world_gm: GameMaster = field(init=False, repr=False)  # the block in the world's own words

    def __post_init__(self) -> None:
        # Narration in another language than the world's names things in it (issue 33 §3,
        # engine.gm.localize): ``gm`` is the block resolved in it, the world's words where it
        # has none; the event log keeps the world's (``log``).
        self.world_gm = localize.origin(self.gm)
        if self.lex.language != self.world_lex.language:  # else a block given resolved stays
            self.gm = localize.block(self.gm, self.lex.language)

    def noun_language(self, name: str) -> str:
        """The language ``name`` (a name this scene gave) is written in: the narration's when
        it came from a translation, else the world's."""
        translated = localize.translated(self.gm, name)
        return self.lex.language if translated else self.world_lex.language

    @property
    def me(self) -> CharacterState:
        return self.state.characters[self.character_id]

    @property
    def name(self) -> str:
        return self.gm.characters_by_id[self.character_id].name

    @property
    def location(self) -> Location:
        return self.gm.locations_by_id[self.me.location]

    def place_name(self, location_id: str) -> str:
        location = self.gm.locations_by_id.get(location_id)
        return location.name if location else location_id

    def knows_place(self, location_id: str) -> bool:
        """Whether the character may hear a place named: where he is, a place he has been to or
        been told of, or where a way he sees here leads (issue 32: an undiscovered place is
        never named, not even in a refusal)."""
        if location_id == self.me.location or location_id in self.me.known_places:
            return True
        return any(way.to == location_id for way in self.exits())

    # --- space ------------------------------------------------------------------------------

    def exits(self, location: Location | None = None) -> list[Exit]:
        """The exits the character knows of: hidden ones only once discovered."""
        where = location or self.location
        found, opened = set(self.me.discovered), set(self.state.unlocked)
        out = []
        for way in where.exits:
            key = f"{where.id}>{way.direction}"
            if way.hidden and key not in found:
                continue
            out.append(way.model_copy(update={"locked": False}) if key in opened else way)
        return out

    def points(self, location: Location | None = None) -> list[Point]:
        where = location or self.location
        found = set(self.me.discovered)
        hidden = [p for p in where.hidden_points if f"{where.id}:{p.id}" in found]
        return [*where.points, *hidden]

    def point_name(self, point_id: str | None) -> str | None:
        if point_id is None:
            return None
        return next((p.name for p in self.points() if p.id == point_id), None)

    def exit_options(self) -> str:
        options = [
            self.lex.t(
                "exit_locked_option" if e.locked else "exit_option",
                direction=self.lex.name("directions", e.direction),
                place=self.place_name(e.to),
            )
            for e in self.exits()
        ]
        return self.lex.join(options)

    def boards(self) -> list[Board]:
        visible = {p.id for p in self.points()}
        return [
            b
            for b in self.gm.boards
            if b.location == self.location.id and (b.point is None or b.point in visible)
        ]

    # --- things and people --------------------------------------------------------------------

    def items_here(self) -> list[Item]:
        """Items lying in the location, on points the character can see."""
        visible = {p.id for p in self.points()}
        out = []
        for item in self.gm.items:
            at = self.state.items.get(item.id)
            if at is None or at.location != self.location.id:
                continue
            if at.point is None or at.point in visible:
                out.append(item)
        return out

    def carried(self) -> list[Item]:
        return [
            item
            for item in self.gm.items
            if (at := self.state.items.get(item.id)) is not None
            and at.character == self.character_id
        ]

    def npcs(self, location_id: str | None = None) -> list[Npc]:
        """The NPCs in a location now (the character's by default)."""
        key = (location_id or self.me.location, time_index(self.state.clock))
        if key not in self._npcs:
            self._npcs[key] = npcs_at(self.gm, self.state, key[0])
        return self._npcs[key]

    def npc_names_known(self, npc: Npc) -> list[str]:
        """What the character can call an NPC: its trade, and its name and aliases once he
        knows them (without a trade it goes by its name). A name he never learnt matches
        nobody, so what the player types cannot test a guess."""
        names = [self.npc_label(npc), *([npc.trade] if npc.trade else [])]
        return names + (npc.aliases if npc.id in self.me.known_names else [])

    def npc_label(self, npc: Npc) -> str:
        """Its name once the character knows it, else its trade (seed 001 "por su oficio")."""
        if npc.id in self.me.known_names or not npc.trade:
            return npc.name
        return npc.trade

    def pc_label(self, character_id: str) -> str:
        """Another player character as this one knows him: his name once they met or were
        introduced, else how he looks (issue 33 §5, ``engine.gm.acquaintance``)."""
        return acquaintance.label(
            self.gm, self.state, self.character_id, character_id, self.lex.language
        )

    def pc_names(self, character_id: str) -> list[str]:
        """What he can call another player character: his name (and first name) once known,
        else how he looks; a name he never learnt calls nobody (issue 33 §5)."""
        if not acquaintance.knows(self.state, self.character_id, character_id):
            return acquaintance.stranger_names(self.gm, character_id, self.lex.language)
        name = self.gm.characters_by_id[character_id].name
        return list(dict.fromkeys([name, *name.split()[:1]]))

    def others(self) -> list[str]:
        return [c for c in characters_at(self.state, self.location.id) if c != self.character_id]

    def witnesses(self, location_id: str | None = None) -> list[str]:
        """Who sees what happens in a location: the characters and NPCs there."""
        where = location_id or self.location.id
        people = characters_at(self.state, where)
        return [*people, *(n.id for n in self.npcs(where))]

    # --- events -------------------------------------------------------------------------------

    def log(
        self,
        kind: str,
        template: str,
        *,
        location: str | None = None,
        seen_by: Sequence[str] | None = None,
        heard_by: Sequence[str] = (),
        data: dict[str, object] | None = None,
        **values: object,
    ) -> GMEvent:
        """Log an event in the world's language, seen by everyone present unless told."""
        where = location or self.location.id
        own = {  # a thing named in the narration's words, in the world's (not what he typed)
            k: localize.own_word(self.gm, v) if isinstance(v, str) and k != "text" else v
            for k, v in values.items()
        }
        text = self.world_lex.t(template, actor=self.name, **own)
        witnesses = list(seen_by) if seen_by is not None else self.witnesses(where)
        return log_event(
            self.state,
            kind,
            self.character_id,
            where,
            text,
            seen_by=witnesses,
            heard_by=list(heard_by),
            data=dict(data or {}),
            at=self.at,
        )
