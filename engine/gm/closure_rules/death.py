"""Rule: a character dies or comes back from death (seed 001 "narra la muerte o la vuelta de un
personaje"; GAME_MASTER.md K-6).

A death is a dying verb ("dies", "cae muerta", "断气") or a killing one ("you slay him") whose
subject, or object, is someone: a character of the world (by name, trade, "the dog", or a
pronoun resolved to one), you, or a person nobody named ("a stranger"). A return is a verb of
coming back from death about the same. Idioms do not count ("dead of night", "muerto de
cansancio", "死寂"), nor what is negated, feared, asked, reported from the past ("my husband
died last winter") or said in speech.
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import Ref
from engine.gm.closure_rules.events import Event, modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.possessor import owner
from engine.gm.closure_rules.subjects import THING

_DEEDS_TEXT = (
    "go enter arrive leave flee climb open close talk speech act gesture attack acquire give "
    "posture consume"
)
_DEEDS = tuple(_DEEDS_TEXT.split())
_PASSIVE = frozenset(
    ["is", "was", "are", "were", "gets", "got", "been", "be", "es", "fue", "son", "fueron", "sido"]
)


def death_or_return(reading: Reading) -> bool:
    doc = reading.doc
    if _back_from_the_grave(reading) or _ghost_of(reading):
        return True
    idioms = doc.of("death_idioms")
    for event in reading.of("die", "kill", "revive"):
        if any(i.start < event.end and event.start < i.end for i in idioms):
            continue
        if reported(reading, event):
            continue
        if _someone(event, reading):
            return True
    return False


def _someone(event: Event, reading: Reading) -> bool:
    """Someone dies: the one who dies or is killed is a person or a character (a candle that
    "dies" is nobody)."""
    people: list[Ref | None] = [*event.objects]
    if event.key != "kill" or _passive(reading, event):
        people.append(event.actor)  # "the brother is slain": the subject is the one killed
    if any(r is not None and r.person for r in people):
        return True
    clause = event.clause
    if event.actor != THING:
        return any(clause.start <= m.start < clause.end and m.ref.person for m in reading.mentions)
    return _bodily(event, reading)


def _bodily(event: Event, reading: Reading) -> bool:
    """A death told by the body ("su pecho deja de moverse", "his eyes glaze over"): a
    phrase of several words about a thing, after someone named in its sentence."""
    doc = reading.doc
    words = [t for t in doc.tokens if event.start <= t.start < event.end]
    if doc.spaced and len(words) < 2:
        return False
    sentence = event.clause.sentence
    return any(
        m.ref.person
        and m.ref.kind != "you"
        and m.start < event.start
        and doc.clause_at(m.start).sentence == sentence
        for m in reading.mentions
    )


def _back_from_the_grave(reading: Reading) -> bool:
    """Someone buried acts in the same sentence ("Father Aldric, buried a week, walks in")."""
    doc = reading.doc
    for burial in doc.hits.get("burial", ()):
        clause = doc.clause_at(burial.start)
        if clause.quoted or clause.question:
            continue
        people = {m.ref for m in reading.mentions if m.ref.person and m.ref.kind != "you"}
        people = {
            m.ref
            for m in reading.mentions
            if m.ref in people and doc.clause_at(m.start).sentence == clause.sentence
        }
        deeds = reading.of(*_DEEDS)
        if any(e.actor in people and e.clause.sentence == clause.sentence for e in deeds):
            return True
    return False


def _passive(reading: Reading, event: Event) -> bool:
    before = [t for t in reading.doc.tokens if event.clause.start <= t.start < event.start]
    return (bool(before) and before[-1].fold in _PASSIVE) or "被" in reading.doc.text[
        event.clause.start : event.start
    ]


def reported(reading: Reading, event: Event) -> bool:
    """Told as hearsay or a story in its sentence ("dicen que murió", "据说", "the song is about
    a knight who died"), or as the past in its clause ("died last winter", "hace años")."""
    doc = reading.doc
    sentence, clause = event.clause.sentence, event.clause.index
    return any(  # what is told after the hearsay or the memory, or with it in its clause
        doc.clause_at(h.start).sentence == sentence
        and (h.start < event.start or doc.clause_at(h.start).index == clause)
        and not event.start <= h.start < event.end  # "back from the grave": no talk of one
        for h in doc.hits.get("reported", ())
    ) or any(doc.clause_at(h.start).index == clause for h in doc.hits.get("past_refs", ()))


def _ghost_of(reading: Reading) -> bool:
    """Someone's ghost or corpse told as there now ("Hilda's ghost sits at the bar",
    "el fantasma de Marta", "小梅的鬼魂", "his corpse"): that person is dead. A ghost of
    nobody ("a ghost story", "the ghost of a smile") says nothing."""
    doc = reading.doc
    idioms = doc.of("death_idioms")
    for hit in doc.of("ghost_nouns"):
        clause = doc.clause_at(hit.start)
        if clause.quoted or clause.question:
            continue
        if any(i.start <= hit.start < i.end for i in idioms):
            continue  # "corpse-pale", "a ghost story"
        if negated(doc, clause, hit.start, hit.first, hit.last, own=False):
            continue
        if modal(doc, clause, hit.start, hit.first, hit.last) or _reported_at(reading, hit.start):
            continue
        who = owner(doc, reading.mentions, hit)
        if who is not None and who.ref.person and who.ref.kind != "animal":
            return True
    return False


def _reported_at(reading: Reading, position: int) -> bool:
    doc = reading.doc
    clause = doc.clause_at(position)
    return any(
        doc.clause_at(h.start).sentence == clause.sentence for h in doc.hits.get("reported", ())
    ) or any(doc.clause_at(h.start).index == clause.index for h in doc.hits.get("past_refs", ()))
