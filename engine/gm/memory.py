"""What NPCs remember of the characters (seed 001 "NPC con memoria": "Al cerrar una conversación,
el máster apunta en el NPC una frase con importancia de 1 a 3"; the forgetting table; "Tope: 8
recuerdos por personaje y 40 por NPC"; decision 18).

A memory is one sentence about one character, with an importance and the game day it was
written. Importance 1 is forgotten once the game day is past the written day + 3, importance 2
past + 30, importance 3 never. An NPC keeps at most 8 memories about one character and 40 in
all; past a cap the lowest importance goes first, then the oldest. Until play writes to an NPC,
its authored memories are the ones it has; they follow the same rules, the caps included (an
authored list past a cap is read as if each memory had been written in turn). ``one_sentence``
keeps the first sentence of what the master writes at a conversation's end ("Ren paid. He
smiled." keeps "Ren paid."). Older memories are found by ``engine.gm.recall``.
"""

from __future__ import annotations

import re

from engine.gm.state import GMState
from engine.gm.world import GameMaster, Memory

PAIR_CAP = 8  # per (NPC, character)
NPC_CAP = 40
KEEP_DAYS: dict[int, int] = {1: 3, 2: 30}  # importance → days kept; 3 is never forgotten
# A sentence ends at . ! ? and any closing quotes, before a space (not "..." nor 3.5), or at 。！？
_SENTENCE_END = re.compile(r"(?<![.\d])[.!?][\"'”’»)]*(?=\s)|[。！？][”’」』]*")
MIN_WORDS = 2  # a one-word "sentence" is an abbreviation ("Mr.") or a fragment: read on


def one_sentence(text: str) -> str:
    """The first sentence of ``text``, its spaces collapsed."""
    plain = " ".join(text.split())
    for end in _SENTENCE_END.finditer(plain):
        head = plain[: end.end()]
        if end.group()[0] in "。！？" or len(head.split()) >= MIN_WORDS:
            return head.strip()
    return plain


def forgotten(memory: Memory, day: int) -> bool:
    """Whether ``memory`` is forgotten on game day ``day``."""
    keep = KEEP_DAYS.get(memory.importance)
    return keep is not None and day > memory.day + keep


def _stored(gm: GameMaster, state: GMState, npc_id: str) -> list[Memory]:
    """What it holds, the caps applied: an authored list (or a state from elsewhere) longer
    than a cap is read as if each memory had been written in turn."""
    if npc_id in state.memories:
        return capped(state.memories[npc_id])
    npc = gm.npcs_by_id.get(npc_id)
    return capped(list(npc.memories)) if npc else []


def capped(kept: list[Memory]) -> list[Memory]:
    """``kept`` within the caps: at most ``PAIR_CAP`` about each character and ``NPC_CAP`` in
    all, the lowest importance going first, then the oldest."""
    for about in dict.fromkeys(m.about for m in kept):
        while sum(m.about == about for m in kept) > PAIR_CAP:
            kept = _evict(kept, about)
    while len(kept) > NPC_CAP:
        kept = _evict(kept, None)
    return kept


def memories(gm: GameMaster, state: GMState, npc_id: str, about: str | None = None) -> list[Memory]:
    """What ``npc_id`` remembers today (about one character, if given), oldest first."""
    day = state.clock.day
    return [
        m
        for m in _stored(gm, state, npc_id)
        if not forgotten(m, day) and (about is None or m.about == about)
    ]


def remember(
    gm: GameMaster, state: GMState, npc_id: str, about: str, text: str, importance: int
) -> list[Memory]:
    """Write a memory in ``npc_id`` about character ``about`` today; returns the memories it
    lost (forgotten by now, or pushed out by a cap)."""
    day = state.clock.day
    before = _stored(gm, state, npc_id)
    new = Memory(about=about, text=" ".join(text.split()), importance=importance, day=day)
    kept = capped([*(m for m in before if not forgotten(m, day)), new])
    state.memories[npc_id] = kept
    return [m for m in [*before, new] if all(m is not k for k in kept)]


def _evict(kept: list[Memory], about: str | None) -> list[Memory]:
    """Without the first to go (among those about ``about``; None: among all): the lowest
    importance, then the oldest."""
    among = [(m.importance, m.day, i) for i, m in enumerate(kept) if about in (None, m.about)]
    _, _, worst = min(among)
    return kept[:worst] + kept[worst + 1 :]
