"""When an NPC's secret may come out (seed 001 "El máster conoce los secretos, pero no los desvela
ni los insinúa: hace falta confianza, presión o una tirada alta"; decision 11; seed 003: once
revealed, it is part of that NPC's knowledge with that character).

The gate is the engine's, never the model's: the NPC trusts the character at least at the level
authored on the secret; or this turn the character pressed it with a check of DC 20 or more and
passed; or this turn's check against it came up a natural 20. A secret already told to this
character stays told.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from engine.gm.state import GMEvent, GMState
from engine.gm.trust import rank, trust_level
from engine.gm.world import Npc

Gate = Literal["revealed", "trust", "pressure", "natural-20"]
PRESSURE_DC = 20
SOCIAL_CHECKS = ("persuasion", "intimidation", "deception", "insight")


def revealed_to(state: GMState, npc: Npc, character_id: str) -> bool:
    return character_id in state.revealed.get(npc.id, [])


def secret_gate(
    state: GMState, npc: Npc, character_id: str, turn: Sequence[GMEvent]
) -> Gate | None:
    """Which gate lets ``npc`` tell ``character_id`` its secret now, or None; ``turn`` is this
    turn's events (the rolls made for the action)."""
    if npc.secret is None:
        return None
    if revealed_to(state, npc, character_id):
        return "revealed"
    if rank(trust_level(state, npc, character_id)) >= rank(npc.secret.reveal_at_trust):
        return "trust"
    for event in turn:
        if event.actor != character_id or event.kind not in ("check", "attack"):
            continue
        if not _against(event, npc):
            continue
        data = event.data
        if data.get("natural") == 20:
            return "natural-20"
        dc, total = data.get("dc"), data.get("total")
        if isinstance(dc, int) and isinstance(total, int) and dc >= PRESSURE_DC and total >= dc:
            return "pressure"
    return None


def _against(event: GMEvent, npc: Npc) -> bool:
    """A roll aimed at this NPC, or a social check aimed at no one in particular."""
    target = event.data.get("target")
    if target is not None:
        return bool(target == npc.id)
    return event.kind == "check" and event.data.get("check") in SOCIAL_CHECKS


def reveal(state: GMState, npc: Npc, character_id: str) -> None:
    """Record that ``npc`` told ``character_id`` its secret."""
    told = state.revealed.setdefault(npc.id, [])
    if character_id not in told:
        told.append(character_id)
