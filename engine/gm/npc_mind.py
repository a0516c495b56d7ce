"""What a creator sees of one NPC's mind (issue "Directors, NPC memory and trust…", Done when:
"the studio shows, for a chosen NPC, its memories, trust per character and what it would say at
each level"; seed 001 "NPC con memoria", "Trato").

``npc_mind`` reads a game state (a play session's, or the world's starting state when there is
none) without changing it: the memories the NPC holds today with the day each is forgotten, its
trust in every player character (score, level and manner), and, for each of the six levels,
what it would say from the offline talk templates: its greeting, its answer to a question (the
disclosures it tells at that level, never its secret) and how it closes a talk.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.gm.memory import KEEP_DAYS, memories
from engine.gm.state import GMState, initial_gm_state
from engine.gm.talk import TalkScript
from engine.gm.talk_read import Slot, tell_for
from engine.gm.talk_voice import slot_line
from engine.gm.talkbook import level_name, talkbook, tone
from engine.gm.trust import level_of, rank, trust_score
from engine.gm.world import TRUST_LEVELS, GameMaster, Npc, TrustLevel

# How an NPC closes a talk with one it has just met, by level (slot E).
CLOSES: dict[TrustLevel, str] = {
    "hostile": "leave",
    "wary": "ask_why",
    "stranger": "ask_who",
    "acquaintance": "none",
    "friend": "ask_affairs",
    "ally": "warn",
}


@dataclass(frozen=True)
class MemoryRow:
    about: str
    about_name: str
    text: str
    importance: int
    day: int
    forgotten_after: int | None  # the last game day it is remembered; None: never forgotten


@dataclass(frozen=True)
class TrustRow:
    character_id: str
    name: str
    score: int
    level: TrustLevel
    level_name: str
    tone: str


@dataclass(frozen=True)
class VoiceRow:
    level: TrustLevel
    level_name: str
    tone: str
    greeting: str
    answer: str
    close: str
    tells: tuple[str, ...]


@dataclass(frozen=True)
class NpcMind:
    npc: Npc
    day: int
    memories: list[MemoryRow]
    trust: list[TrustRow]
    voices: list[VoiceRow]


def npc_mind(
    gm: GameMaster, state: GMState | None, npc_id: str, language: str | None = "en"
) -> NpcMind:
    """The NPC's memories, trust and voice; KeyError for an NPC the block does not have."""
    npc = gm.npcs_by_id[npc_id]
    state = state if state is not None else initial_gm_state(gm)
    return NpcMind(
        npc=npc,
        day=state.clock.day,
        memories=_memories(gm, state, npc),
        trust=_trust(gm, state, npc, language),
        voices=[_voice(npc, level, language) for level in TRUST_LEVELS],
    )


def _memories(gm: GameMaster, state: GMState, npc: Npc) -> list[MemoryRow]:
    names = {c.id: c.name for c in gm.characters}
    rows = []
    for memory in reversed(memories(gm, state, npc.id)):
        keep = KEEP_DAYS.get(memory.importance)
        rows.append(
            MemoryRow(
                about=memory.about,
                about_name=names.get(memory.about, memory.about),
                text=memory.text,
                importance=memory.importance,
                day=memory.day,
                forgotten_after=memory.day + keep if keep is not None else None,
            )
        )
    return rows


def _trust(gm: GameMaster, state: GMState, npc: Npc, language: str | None) -> list[TrustRow]:
    names = {c.id: c.name for c in gm.characters}
    ids = [*names, *(c for c in state.trust.get(npc.id, {}) if c not in names)]
    rows = []
    for character_id in ids:
        score = trust_score(state, npc, character_id)
        level = level_of(score)
        row = TrustRow(
            character_id,
            names.get(character_id, character_id),
            score,
            level,
            level_name(level, language),
            tone(level, language),
        )
        rows.append(row)
    return rows


def _voice(npc: Npc, level: TrustLevel, language: str | None) -> VoiceRow:
    """What it would say at ``level`` to someone it has just met."""
    book = talkbook(language)
    script = TalkScript(npc, "", "", book.language, level, 0, [], {})
    told, kept = tell_for(npc, level, "")
    values = {"npc": npc.name, "trade_phrase": npc.trade}
    question = Slot("question", {"tell": told, "more": "yes" if kept else "", **values})
    tells = tuple(
        npc.disclosures[t] for t in TRUST_LEVELS if t in npc.disclosures and rank(t) <= rank(level)
    )
    return VoiceRow(
        level=level,
        level_name=level_name(level, language),
        tone=tone(level, language),
        greeting=slot_line(book, script, "C", Slot("greeting", values)),
        answer=slot_line(book, script, "C", question),
        close=slot_line(book, script, "E", Slot(CLOSES[level], values)),
        tells=tells if level != "hostile" else (),
    )
