"""A death told by its signs rather than by a verb of dying (seed 001 "narra la muerte … de un
personaje"; issue 34 §1), and what only looks like one: for the death-or-return rule.

The signs: the life or the light going out of someone's eyes ("the life goes out of his
eyes", "se le apaga la vida en los ojos", "眼里的光熄灭了"); a body gone cold or stiff after
it fell ("she keels over; when you reach her she has gone cold", "se desploma … ya está
fría", "倒地……人已经凉了"). What only looks like one: in Chinese, "死" before a noun is an
attribute of something dead already or a likeness ("一只死老鼠", "白得像死人"), not a death
now. The words are data (``dr_life*``, ``dr_eye*``, ``dr_cold*`` and ``dr_collapse``
classes of the closure lexicon).
"""

from __future__ import annotations

from engine.gm.closure_rules.death_scope import believed, hypothetical, someone_in
from engine.gm.closure_rules.events import Event, modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.text import Doc

_ZH_BOUND = set("了过着掉去")  # "死了", "死过去": a verb, not an attribute


def dead_attribute(reading: Reading, event: Event) -> bool:
    """Chinese "死" standing alone before a noun: "一只死老鼠", "像死人"."""
    doc = reading.doc
    if doc.spaced or doc.text[event.start : event.end] != "死":
        return False
    after = [t for t in doc.tokens if t.start >= event.end]
    if not after or after[0].start != event.end or after[0].text[:1] in _ZH_BOUND:
        return False
    return after[0].end <= doc.clause_at(event.start).end and _noun_like(reading, after[0].start)


def _noun_like(reading: Reading, start: int) -> bool:
    """A mention or a word of no verb class starts at ``start``."""
    if any(m.start == start for m in reading.mentions):
        return True
    doc = reading.doc
    return not any(h.start == start for k in doc.words.verb_keys for h in doc.hits.get(k, ()))


def signs_of_death(reading: Reading) -> bool:
    return _light_goes_out(reading) or _gone_cold(reading)


def _light_goes_out(reading: Reading) -> bool:
    """Life, or the light of the eyes, going out in one clause that names the eyes or the
    face, in a sentence that names someone other than you."""
    doc = reading.doc
    for verb in doc.of("dr_life_out"):
        clause = doc.clause_at(verb.start)
        eyes = _in_clause(doc, clause.index, "dr_eye_nouns")
        lives = _in_clause(doc, clause.index, "dr_life_nouns")
        if not eyes or not (lives or _in_clause(doc, clause.index, "dr_eye_light")):
            continue
        if _told(reading, verb) and someone_in(reading, clause.sentence):
            return True
    return False


def _gone_cold(reading: Reading) -> bool:
    """A body gone cold or stiff, its subject a person just before it, after a fall in its
    sentence or the one before ("se desploma; … ya está fría")."""
    doc = reading.doc
    falls = [doc.clause_at(h.start).sentence for h in doc.of("dr_collapse", "fall")]
    for cold in doc.of("dr_cold"):
        sentence = doc.clause_at(cold.start).sentence
        if not any(s in (sentence, sentence - 1) for s in falls):
            continue
        if _person_before(reading, cold) and _told(reading, cold):
            return True
    return False


def _person_before(reading: Reading, hit: Hit) -> bool:
    """The word before the state, past auxiliaries and adverbs, is someone: a person named,
    a pronoun of a person, a body ("her body", "人", "身子"); none in its clause (Spanish
    drops it) is someone named in its sentence or the one before."""
    doc = reading.doc
    at = hit.first - 1
    while at >= 0 and doc.words.has(doc.tokens[at], "dr_cold_glue"):
        at -= 1
    clause = doc.clause_at(hit.start)
    if at < 0 or doc.tokens[at].start < clause.start:  # "…, ya está fría": the one who fell
        return any(
            m.ref.person and m.ref.kind != "you" and doc.clause_at(m.start).sentence == s
            for m in reading.mentions
            for s in (clause.sentence, clause.sentence - 1)
        )
    token = doc.tokens[at]
    if doc.words.has(token, "dr_cold_subjects"):
        return True
    return any(
        m.start <= token.start < m.end and m.ref.person and m.ref.kind != "you"
        for m in reading.mentions
    )


def _in_clause(doc: Doc, index: int, key: str) -> list[Hit]:
    return [h for h in doc.of(key) if doc.clause_at(h.start).index == index]


def _told(reading: Reading, hit: Hit) -> bool:
    """Told by the narrator as happening: not quoted, asked, denied, wished, feared or
    believed; "how" after a verb of seeing ("ves cómo se apaga") is no modal."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    if clause.quoted or clause.question:
        return False
    if negated(doc, clause, hit.start, hit.first, hit.last, own=False):
        return False
    seen = doc.of("dr_seen_how")
    modals = [
        h
        for h in doc.hits.get("modals", ())
        if clause.start <= h.start < hit.start and not any(s.start == h.start for s in seen)
    ]
    if modals or (not seen and modal(doc, clause, hit.start, hit.first, hit.first, form=False)):
        return False
    return not (hypothetical(reading, hit.start) or believed(reading, hit.start))
