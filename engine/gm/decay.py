"""Forgetting by game day, as stored state (seed 001 "NPC con memoria": importance 1 forgotten
at 3 game days, 2 at 30, 3 never; decision 18).

``engine.gm.memory`` already leaves forgotten memories out whenever it reads them; this prunes
them from a session's saved state, so the state stops growing with sentences nobody will read
again (Celery beat runs it over the sessions: play.periodic). Authored memories an NPC still
holds untouched are copied into the state only when one of them is forgotten.
"""

from __future__ import annotations

from engine.gm.memory import forgotten
from engine.gm.state import GMState
from engine.gm.world import GameMaster


def prune_forgotten(gm: GameMaster, state: GMState) -> int:
    """Drop the memories forgotten on the state's game day; returns how many were dropped."""
    day = state.clock.day
    dropped = 0
    for npc in gm.npcs:
        held = state.memories.get(npc.id, npc.memories)
        kept = [m for m in held if not forgotten(m, day)]
        if len(kept) != len(held):
            dropped += len(held) - len(kept)
            state.memories[npc.id] = kept
    for npc_id, held in list(state.memories.items()):
        if npc_id not in gm.npcs_by_id:
            kept = [m for m in held if not forgotten(m, day)]
            dropped += len(held) - len(kept)
            state.memories[npc_id] = kept
    return dropped
