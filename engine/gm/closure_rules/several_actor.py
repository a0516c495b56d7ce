"""Whose deeds they are, where the shared reading of subjects loses the player (seed 001
"Resuelve más de una acción por mensaje").

- Watched deeds: "Hilda watches you take the rope, then the tankard", "Marta te ve coger la
  cuerda", "小梅眼睁睁看着你拿了绳子，又拿了酒碗": after a verb of seeing and "you", the
  deeds are the player's, not the watcher's, to the end of the sentence.
- A place gone to is no doer: "然后到后院去吃": the player goes to the yard.
- A thing handled is no doer: "coil it over your shoulder and head down to the cellar": the
  rope the player took does not head anywhere; the deed goes on being the player's.
"""

from __future__ import annotations

from dataclasses import replace

from engine.gm.closure_rules.entities import YOU, Ref
from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading

_THINGS = frozenset(["item", "point", "place", "thing", "hidden"])


def player_events(reading: Reading, keys: tuple[str, ...]) -> list[Event]:
    """The asserted events of ``keys``, with the player put back as the doer where a watcher
    or a thing handled took the place of the subject."""
    watched = _watched_from(reading)
    out: list[Event] = []
    last: dict[int, Ref | None] = {}  # sentence → the last person who did something
    for event in reading.of(*keys):
        sentence = event.clause.sentence
        actor = event.actor
        if sentence in watched and event.start >= watched[sentence]:
            actor = YOU  # the watcher only watches: "Marta te ve coger…, bajar a la bodega"
        elif actor is not None and actor.kind in ("point", "place") and _bound(reading, event):
            actor = YOU  # "然后到后院去吃": the yard is where, not who
        elif actor is not None and actor.kind in _THINGS and last.get(sentence) == YOU:
            actor = YOU if _handled(reading, event, actor) else actor
        if actor is not None and actor.person:
            last[sentence] = actor
        out.append(event if actor == event.actor else replace(event, actor=actor))
    return out


def _watched_from(reading: Reading) -> dict[int, int]:
    """Per sentence, where the watched deeds begin: after "you" past a verb of seeing."""
    doc = reading.doc
    out: dict[int, int] = {}
    for seen in reading.of("perceive"):
        if seen.actor is None or not seen.actor.person or seen.actor == YOU:
            continue
        sentence = seen.clause.sentence
        after = [m for m in reading.mentions if m.start >= seen.end and m.ref.person]
        clitic = doc.language == "es" and _te_before(reading, seen)
        if clitic or (after and after[0].ref == YOU and after[0].start - seen.end <= 4):
            out.setdefault(sentence, seen.end)
    return out


def _te_before(reading: Reading, event: Event) -> bool:
    """ "Marta te ve…": the one seen is "te", just before the verb."""
    before = [t for t in reading.doc.tokens if t.end <= event.start][-1:]
    return bool(before) and before[0].fold == "te"


def _handled(reading: Reading, event: Event, actor: Ref) -> bool:
    """The thing the reading took for the doer is what the player's deed before it was done
    to ("grab the rope…, coil it…"): an object, not a subject."""
    sentence = event.clause.sentence
    return any(
        e.clause.sentence == sentence
        and e.start < event.start
        and actor in e.objects
        and e.actor == YOU
        for e in reading.events
    )


def _bound(reading: Reading, event: Event) -> bool:
    """Chinese: the place is the goal of a motion word right before it ("到后院", "进地窖")
    in the event's clause, so the one who goes there is the player before it."""
    doc = reading.doc
    if doc.spaced:
        return False
    clause = event.clause
    goals = doc.words.list("several_goal_marks")
    return any(
        m.ref == event.actor
        and clause.start < m.start < event.start
        and doc.text[m.start - 1 : m.start] in goals
        for m in reading.mentions
    )
