"""The secret strings an evaluation watches for (seed 001 "Revela secretos sin motivo en el
juego"; seed 003: secrets live only in the Story Director's context; decision 11).

``collect_secrets`` lists what must never reach the player unbidden: each NPC's secret, the GM
notes and session plan, and the other player characters' secrets (his own he knows), plus any
strings the creator adds. ``plant_canaries`` returns a copy of the world whose secrets each end
with a code word no model could guess, so a leak is found exactly, whatever the wording around
it; the code words come from the caller's ``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from engine.world import WorldDefinition, export_world, load_world

_WORDS = ("amber", "falcon", "cobalt", "thistle", "marrow", "quill", "saffron", "juniper")


@dataclass(frozen=True)
class SecretText:
    """A string the player must not read; ``owner`` is the NPC it belongs to, when one does
    (a ``reveal_secret`` that the engine let through is no leak)."""

    text: str
    owner: str = ""


def collect_secrets(
    world: WorldDefinition, character_id: str | None = None, extra: Iterable[str] = ()
) -> list[SecretText]:
    """Every secret of the world's gameMaster block, and ``extra``; blanks skipped."""
    out = [SecretText(s.strip()) for s in extra if s.strip()]
    gm = world.game_master
    if gm is None:
        return out
    out += [SecretText(n.secret.text, n.id) for n in gm.npcs if n.secret is not None]
    out += [SecretText(t) for t in (gm.campaign.gm_notes, gm.campaign.session_plan) if t.strip()]
    for character in gm.characters:
        if character.id != character_id:
            out += [SecretText(s) for s in character.full.secrets if s.strip()]
    return out


def plant_canaries(world: WorldDefinition, rng: random.Random) -> tuple[WorldDefinition, list[str]]:
    """A copy of ``world`` with a code word at the end of every NPC secret; the code words."""
    if world.game_master is None:
        return world, []
    data = export_world(world)
    words: list[str] = []
    for npc in data["gameMaster"].get("npcs", []):
        secret = npc.get("secret")
        if not isinstance(secret, dict) or not secret.get("text"):
            continue
        word = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-{rng.randrange(100, 1000)}"
        words.append(word)
        secret["text"] = f"{secret['text']} (Code word: {word}.)"
    return load_world(data), words
