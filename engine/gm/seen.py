"""What one witness reads of a logged event (seed 001 "Multijugador": "Cada evento se entrega
por percepción a quien lo ve u oye"; GAME_MASTER.md decisions 5 and 17; issue 32 §10: a table
delivers what was perceived, never what was typed).

An event's ``text`` is written for its actor. For the player's own ``action`` it is what he
typed, which nobody else ever reads: the others present read the lines the engine wrote for
them on the event (``data["seen"]``, ``engine.gm.aloud``: his words when he speaks aloud, or
that he talks with someone), and nothing else. A ``talk`` reply and the master's closing
``master`` event (a narration written for the actor) give the others their speech bubbles only.
Any other event gives its text, then its bubbles. A speaking NPC is named as the reader knows
it (by trade until he learns its name); an NPC reader (``known`` None) knows every name. An
event only heard gives one "you hear …" line, naming the place when he knows it.

A player character the reader has not met (``engine.gm.acquaintance``, issue 33 §5) is
described by how he looks wherever a line would name him.

One function for every reader of the log that is not the event's actor: the lines delivered to
another seat (``engine.gm.delivery``), the last events of his master's scene context
(``engine.gm.perception``), his session memory's recaps and the NPCs' memories of a scene
(``engine.gm.recaps``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from engine.gm.acquaintance import unnamed
from engine.gm.partybook import partybook
from engine.gm.phrasebook import phrasebook
from engine.gm.state import GMEvent
from engine.gm.talkbook import talkbook
from engine.gm.world import GameMaster

BUBBLES_ONLY = ("talk", "master")  # their text is the actor's narration, not the others'
TYPED = "action"  # the player's own words: the others read ``data["seen"]`` alone
SEEN = "seen"  # the key of the lines the engine wrote for the others (engine.gm.aloud)
LOUD = {"attack": "fight"}  # what a heard event sounds like; anything else is "noise"


def perceived(
    gm: GameMaster,
    viewer_id: str,
    events: Iterable[GMEvent],
    lang: str,
    *,
    known: Collection[str] | None = None,
    places: Collection[str] = (),
) -> list[str]:
    """The lines ``viewer_id`` perceives of ``events``, in order, without repeats. ``known``:
    the ids of the NPCs and player characters whose names he knows (None: an NPC, who knows
    them all); ``places``: the places he knows, named when he hears something there."""
    lines: list[str] = []
    for event in events:
        lines += witnessed(gm, viewer_id, event, lang, known=known, places=places)
    return list(dict.fromkeys(line for line in lines if line.strip()))


def witnessed(
    gm: GameMaster,
    viewer_id: str,
    event: GMEvent,
    lang: str,
    *,
    known: Collection[str] | None = None,
    places: Collection[str] = (),
) -> list[str]:
    """What ``viewer_id`` reads of one event: its text when it is his own, what he saw of
    another's, a "you hear …" line for one only heard, nothing when he did not perceive it.
    A player character he has not met is described, never named (``known`` holds the ids of
    the characters he knows too: ``engine.gm.acquaintance.names_known``)."""
    lines = _witnessed(gm, viewer_id, event, lang, known=known, places=places)
    if known is None:  # an NPC: it knows every name
        return lines
    return [unnamed(gm, line, viewer_id, known, lang) for line in lines]


def _witnessed(
    gm: GameMaster,
    viewer_id: str,
    event: GMEvent,
    lang: str,
    *,
    known: Collection[str] | None = None,
    places: Collection[str] = (),
) -> list[str]:
    if viewer_id == event.actor:
        return [event.text] if event.text.strip() else []
    if viewer_id in event.seen_by:
        return seen_lines(gm, event, lang, known)
    if viewer_id in event.heard_by:
        return [heard_line(gm, event, lang, places)]
    return []


def seen_lines(
    gm: GameMaster, event: GMEvent, lang: str, known: Collection[str] | None = None
) -> list[str]:
    """What someone other than its actor sees of an event."""
    if event.kind == TYPED:
        return shown(event)
    bubbles = [bubble_line(gm, b, lang, known) for b in _bubbles(event)]
    if event.kind in BUBBLES_ONLY:
        return bubbles
    return [event.text, *bubbles]


def shown(event: GMEvent) -> list[str]:
    """The lines the engine wrote on a typed action for the others present (none: nothing)."""
    found = event.data.get(SEEN)
    if not isinstance(found, list):
        return []
    return [str(line) for line in found if isinstance(line, str) and line.strip()]


def bubble_line(
    gm: GameMaster, bubble: dict[str, Any], lang: str, known: Collection[str] | None = None
) -> str:
    """One speech bubble as a line, its speaker named as the reader knows it."""
    speaker = str(bubble.get("speaker") or "")
    name = str(bubble.get("name") or speaker)
    npc = gm.npcs_by_id.get(speaker)
    if npc is not None:
        knows = known is None or npc.id in known or not npc.trade
        name = npc.name if knows else phrasebook(lang).trade_name(npc.trade or "")
    elif speaker in gm.characters_by_id:
        name = gm.characters_by_id[speaker].name
    who = name[:1].upper() + name[1:]
    return talkbook(lang).t("reply_line", speaker=who, text=str(bubble.get("text") or ""))


def heard_line(gm: GameMaster, event: GMEvent, lang: str, places: Collection[str] = ()) -> str:
    """What a loud event elsewhere sounds like: a fight, or noise; from where, if he knows it."""
    what = LOUD.get(event.kind, "noise")
    place = gm.locations_by_id.get(event.location)
    book = partybook(lang)
    if place is not None and event.location in places:
        return book.t(f"heard_{what}_place", place=place.name)
    return book.t(f"heard_{what}")


def _bubbles(event: GMEvent) -> Sequence[dict[str, Any]]:
    found = event.data.get("bubbles")
    if not isinstance(found, list):
        return []
    return [b for b in found if isinstance(b, dict) and str(b.get("text") or "").strip()]
