"""Rule: a character dies or comes back from death (seed 001 "narra la muerte o la vuelta de un
personaje"; GAME_MASTER.md K-6).

A death is a present-scene event whose patient is a being: a dying verb ("dies", "cae
muerta", "断气") whose subject is someone (a character of the world by name, trade, "the
dog" or a pronoun, you, a person nobody named, a Chinese noun of a person: "外乡人"), a
killing one about someone, a bodily state of someone named before it ("drowned", "no longer
breathing", "没有了呼吸"), or its future ("no volverá a despertar"). A return is a verb of
coming back from death, or someone buried, believed dead or long gone who acts in the scene
(``death_return``). Idioms do not count ("dead of night", "una risa ahogada", "装死"), nor a
verb of dying whose subject is no being ("la risa se le muere"), nor what is negated,
nearly done, feared, threatened or foreseen, believed, long past ("three winters back",
"hace años", "三年前"), asked or said in speech, nor hearsay or mourning unless of a death
just now ("who died in the night"): ``death_scope``. The words are data (the closure lexicon's
``die``/``kill``/``revive`` verbs and its ``dr_*`` classes).
"""

from __future__ import annotations

from engine.gm.closure_rules.death_return import returned
from engine.gm.closure_rules.death_scope import (
    being_before,
    believed,
    distant,
    hypothetical,
    inner_negation,
    stated,
)
from engine.gm.closure_rules.death_signs import dead_attribute, signs_of_death
from engine.gm.closure_rules.entities import Ref
from engine.gm.closure_rules.events import Event, modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.possessor import owner
from engine.gm.closure_rules.subjects import THING

_PASSIVE = frozenset(
    ["is", "was", "are", "were", "gets", "got", "been", "be", "es", "fue", "son", "fueron", "sido"]
)


def death_or_return(reading: Reading) -> bool:
    if returned(reading) or _ghost_of(reading):
        return True
    if any(_now(reading, e) and _someone(e, reading) for e in _deaths(reading)):
        return True
    return _death_state(reading) or _foretold(reading) or signs_of_death(reading)


def _deaths(reading: Reading) -> list[Event]:
    """The narrator's verbs of dying, killing and reviving told as done; a phrase that
    holds its own negation ("再也不动了", "no vuelve a despertar") is judged by what stands
    before it, not by the negation inside it."""
    out: list[Event] = []
    for event in reading.events:
        if event.key not in ("die", "kill", "revive") or event.quoted or event.modal:
            continue
        if event.clause.question or dead_attribute(reading, event):
            continue
        if event.negated and not (
            inner_negation(reading, event.start, event.end)
            and stated(reading, _hit(reading, event), own_negation=True)
        ):
            continue
        out.append(event)
    return out


def _hit(reading: Reading, event: Event) -> Hit:
    words = [n for n, t in enumerate(reading.doc.tokens) if event.start <= t.start < event.end]
    first = words[0] if words else 0
    return Hit(event.key, event.start, event.end, first, (words[-1] + 1) if words else first + 1)


def _now(reading: Reading, event: Event) -> bool:
    """Happening in the scene: no idiom ("dead of night"), no hearsay or memory, no time
    long past, no fear or threat, no belief."""
    idioms = reading.doc.of("death_idioms", "dr_idioms")
    if any(i.start < event.end and event.start < i.end for i in idioms):
        return False
    if distant(reading, event.start):
        return False
    if reported(reading, event) and not _recent(reading, event.start):
        return False
    return not (hypothetical(reading, event.start) or believed(reading, event.start))


def _recent(reading: Reading, start: int) -> bool:
    """Mourned or told as news, but of a death just now ("who passed away in the night",
    "que falleció anoche", "他昨夜走了"): it happened in the story, not long ago."""
    doc = reading.doc
    return any(
        doc.clause_at(h.start).index == doc.clause_at(start).index
        for h in doc.hits.get("dr_recent", ())
    )


def _death_state(reading: Reading) -> bool:
    """A death told by a state ("drowned", "no longer breathing", "没有了呼吸") of someone
    named before it or in it ("el pulso de Inés … se detiene") in its sentence."""
    doc = reading.doc
    idioms = doc.of("death_idioms", "dr_idioms")
    for hit in doc.of("dr_states"):
        if any(i.start < hit.end and hit.start < i.end for i in idioms):
            continue
        own = inner_negation(reading, hit.start, hit.end)
        if not stated(reading, hit, own_negation=own) or not being_before(reading, hit.end):
            continue
        if distant(reading, hit.start):
            continue
        if _reported_at(reading, hit.start) and not _recent(reading, hit.start):
            continue
        if not (hypothetical(reading, hit.start) or believed(reading, hit.start)):
            return True
    return False


def _foretold(reading: Reading) -> bool:
    """A death told by its future ("will never wake again", "no volverá a despertar")."""
    doc = reading.doc
    for hit in doc.of("dr_future"):
        clause = doc.clause_at(hit.start)
        if clause.quoted or clause.question or _reported_at(reading, hit.start):
            continue
        if hypothetical(reading, hit.start) or not being_before(reading, hit.start):
            continue
        if not any(
            doc.clause_at(c.start).sentence == clause.sentence
            for c in doc.hits.get("conditionals", ())
        ):
            return True
    return False


def _someone(event: Event, reading: Reading) -> bool:
    """Someone dies: the one who dies or is killed is a person or a character (a candle that
    "dies" is nobody)."""
    people: list[Ref | None] = [] if _intransitive(reading, event) else [*event.objects]
    if event.key != "kill" or _passive(reading, event):
        people.append(event.actor)  # "the brother is slain": the subject is the one killed
    if any(r is not None and r.person for r in people):
        return True
    clause = event.clause
    if event.actor is None or _relative(reading, event):
        return being_before(reading, event.start)
    if event.actor != THING:
        return any(clause.start <= m.start < clause.end and m.ref.person for m in reading.mentions)
    return _bodily(event, reading)


def _relative(reading: Reading, event: Event) -> bool:
    """The verb's subject is a relative pronoun of a person ("Osric, who died in the night",
    "Tomás, quien murió anoche"): the one it stands for is named before it."""
    doc = reading.doc
    before = [t for t in doc.tokens if event.clause.start <= t.start < event.start]
    return bool(before) and before[0].fold in doc.words.list("dr_who")


def _intransitive(reading: Reading, event: Event) -> bool:
    """A one-word verb of dying ("dies", "muere") has no patient after it ("se le muere a
    Marta la risa"); a phrase may ("death comes for the drunk"), and in Chinese a verb
    with "死" kills what follows ("砸死了小梅")."""
    doc = reading.doc
    if event.key != "die" or not doc.spaced:
        return False
    return len(doc.between(event.start, event.end)) == 1


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
