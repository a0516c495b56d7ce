"""Who receives what of one action (seed 001 "Multijugador": "Cada evento se entrega por
percepción a quien lo ve u oye"; GAME_MASTER.md GM-P-1, GM-P-3, decision 5; issue 12 §4; issue
32 §10: what was perceived, never what was typed).

``delivered_to`` is pure: it reads the action's events (the log from the action's first event
on, so that lines logged beside the turn's own list, like what the others see of a whisper, are
delivered too) and maps each player character to the text his player receives:

- the actor receives the narration, always (an empty one included);
- a question or a refusal (kind ``ask`` or ``refused``) reaches the actor alone;
- another character receives, event by event, what he perceived (``engine.gm.seen``): never
  the actor's typed input, only the lines the engine wrote for the others (his words when he
  speaks aloud, that he talks with someone); of another event its text and each speech bubble
  as a line ``Name: “words”`` in the world's language, the NPC named as he knows it (its trade
  otherwise); an NPC's reply (``talk``) and the master's closing event (``master``, whose
  narration is written for the actor) give only their bubbles; an event only heard gives one
  "you hear …" line, naming the place when he knows it;
- a character who perceived nothing is absent from the map (never ``""``).

Every player character of the state is considered; the caller delivers to those who play.
"""

from __future__ import annotations

from engine.gm.acquaintance import names_known
from engine.gm.result import GMActionResult
from engine.gm.seen import perceived
from engine.world import WorldDefinition

ACTOR_ONLY = ("ask", "refused")  # nothing happened in the world: only the asker reads it


def delivered_to(
    world: WorldDefinition, result: GMActionResult, actor: str, since: int | None = None
) -> dict[str, str]:
    """Character id → the text his player receives of this action (``since``: the id of the
    action's first event; without it, the result's own events are read)."""
    out = {actor: result.narration}
    state, gm = result.state.gm, world.game_master
    if result.kind in ACTOR_ONLY or state is None or gm is None:
        return out
    events = [e for e in state.events if e.id >= since] if since is not None else result.events
    language = world.language or "en"
    for viewer, sheet in state.characters.items():
        if viewer == actor:
            continue
        lines = perceived(
            gm, viewer, events, language, known=names_known(sheet), places=sheet.known_places
        )
        if lines:
            out[viewer] = "\n".join(lines)
    return out
