"""Trust between an NPC and a character (seed 001 "Trato", "Qué mueve el trato"; decision 19).

A score per (NPC, character) pair with six level thresholds, Hostile to Ally. The start level is
authored per NPC (``trust`` per character, else ``startTrust``, default Stranger); each move of
the seed shifts the score by the NPC's authored amount. What an NPC tells depends on the level.
"""

from __future__ import annotations

from engine.gm.state import GMState
from engine.gm.world import TRUST_LEVELS, Npc, TrustLevel

# The lowest score of each level, and the score a level starts at.
THRESHOLDS: dict[TrustLevel, int] = {
    "hostile": -1000,
    "wary": -60,
    "stranger": -20,
    "acquaintance": 20,
    "friend": 50,
    "ally": 80,
}
START_SCORES: dict[TrustLevel, int] = {
    "hostile": -80,
    "wary": -40,
    "stranger": 0,
    "acquaintance": 30,
    "friend": 60,
    "ally": 90,
}
TONES: dict[TrustLevel, str] = {
    "hostile": "short, cold or threatening; gives nothing for free",
    "wary": "the minimum; asks what he wants and why (a tone, not a refusal: still answers)",
    "stranger": "asks who he is; talks of its work and common knowledge; dodges the delicate",
    "acquaintance": "greets, remembers the last chat, gossips; on delicate things hesitates",
    "friend": "takes the initiative, worries about him, tells him whom to go to",
    "ally": "on his side: tells him all it can and warns him",
}


def level_of(score: int) -> TrustLevel:
    """The level a score falls in."""
    found: TrustLevel = "hostile"
    for level in TRUST_LEVELS:
        if score >= THRESHOLDS[level]:
            found = level
    return found


def rank(level: TrustLevel) -> int:
    return TRUST_LEVELS.index(level)


def trust_score(state: GMState, npc: Npc, character_id: str) -> int:
    """The current score: moved in play, else the authored start level's score."""
    moved = state.trust.get(npc.id, {}).get(character_id)
    if moved is not None:
        return moved
    return START_SCORES[npc.trust.get(character_id, npc.start_trust)]


def trust_level(state: GMState, npc: Npc, character_id: str) -> TrustLevel:
    return level_of(trust_score(state, npc, character_id))


def move_trust(state: GMState, npc: Npc, character_id: str, move: str) -> int:
    """Shift trust by the NPC's amount for ``move`` (a ``TrustMoves`` field); returns the shift.

    An unknown move shifts nothing. Flattery lowers it for an NPC that dislikes flattery.
    """
    amount = getattr(npc.trust_moves, move, None)
    if not isinstance(amount, int):
        return 0
    if move == "flatter" and npc.dislikes_flattery:
        amount = -abs(amount)
    score = max(-100, min(100, trust_score(state, npc, character_id) + amount))
    state.trust.setdefault(npc.id, {})[character_id] = score
    return amount
