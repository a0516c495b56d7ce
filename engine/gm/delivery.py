"""Who receives what of one action (seed 001 "Multijugador": "Cada evento se entrega por
percepción a quien lo ve u oye"; GAME_MASTER.md GM-P-1, GM-P-3, decision 5; issue 12 §4).

``delivered_to`` is pure: it reads the action's events (the log from the action's first event
on, so that lines logged beside the turn's own list, like what the others see of a whisper, are
delivered too) and maps each player character to the text his player receives:

- the actor receives the narration, always (an empty one included);
- a question or a refusal (kind ``ask`` or ``refused``) reaches the actor alone;
- another character receives, event by event, what he perceived: a seen event gives its text,
  and each speech bubble a line ``Name: “words”`` in the world's language, the NPC named as he
  knows it (its trade otherwise, like ``Scene.npc_label``); an NPC's reply (``talk``) and the
  master's closing event (``master``, whose narration is written for the actor) give only
  their bubbles; an event only heard gives one "you hear …" line, naming the place when he
  knows it;
- a character who perceived nothing is absent from the map (never ``""``).

Every player character of the state is considered; the caller delivers to those who play.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.gm.partybook import partybook
from engine.gm.phrasebook import phrasebook
from engine.gm.result import GMActionResult
from engine.gm.state import CharacterState, GMEvent
from engine.gm.talkbook import talkbook
from engine.gm.world import GameMaster
from engine.world import WorldDefinition

ACTOR_ONLY = ("ask", "refused")  # nothing happened in the world: only the asker reads it
BUBBLES_ONLY = ("talk", "master")  # their text is the actor's narration, not the others'
LOUD = {"attack": "fight"}  # what a heard event sounds like; anything else is "noise"


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
        lines = perceived(gm, sheet, viewer, events, language)
        if lines:
            out[viewer] = "\n".join(lines)
    return out


def perceived(
    gm: GameMaster, viewer: CharacterState, viewer_id: str, events: Iterable[GMEvent], lang: str
) -> list[str]:
    """The lines one character perceives of ``events``, in order, without repeats."""
    lines: list[str] = []
    for event in events:
        if viewer_id in event.seen_by:
            lines += seen_lines(gm, viewer, event, lang)
        elif viewer_id in event.heard_by:
            lines.append(heard_line(gm, viewer, event, lang))
    return list(dict.fromkeys(line for line in lines if line.strip()))


def seen_lines(gm: GameMaster, viewer: CharacterState, event: GMEvent, lang: str) -> list[str]:
    bubbles = [bubble_line(gm, viewer, b, lang) for b in _bubbles(event)]
    if event.kind in BUBBLES_ONLY:
        return bubbles
    return [event.text, *bubbles]


def bubble_line(gm: GameMaster, viewer: CharacterState, bubble: dict[str, Any], lang: str) -> str:
    """One speech bubble as a line, its speaker named as the viewer knows it."""
    speaker = str(bubble.get("speaker") or "")
    name = str(bubble.get("name") or speaker)
    npc = gm.npcs_by_id.get(speaker)
    if npc is not None:
        known = npc.id in viewer.known_names or not npc.trade
        name = npc.name if known else phrasebook(lang).trade_name(npc.trade or "")
    elif speaker in gm.characters_by_id:
        name = gm.characters_by_id[speaker].name
    who = name[:1].upper() + name[1:]
    return talkbook(lang).t("reply_line", speaker=who, text=str(bubble.get("text") or ""))


def heard_line(gm: GameMaster, viewer: CharacterState, event: GMEvent, lang: str) -> str:
    """What a loud event elsewhere sounds like: a fight, or noise; from where, if he knows it."""
    what = LOUD.get(event.kind, "noise")
    place = gm.locations_by_id.get(event.location)
    book = partybook(lang)
    if place is not None and event.location in viewer.known_places:
        return book.t(f"heard_{what}_place", place=place.name)
    return book.t(f"heard_{what}")


def _bubbles(event: GMEvent) -> Sequence[dict[str, Any]]:
    found = event.data.get("bubbles")
    if not isinstance(found, list):
        return []
    return [b for b in found if isinstance(b, dict) and str(b.get("text") or "").strip()]
