"""When a death told in the narration is not one happening now (issue 34 §1; seed 001 "no mata
ni resucita"): for the death-or-return rule.

A death is the scene's only when the narrator tells it as happening: not a death long past
("three winters back", "hace tres inviernos", "三年前"), not one feared, threatened or
foreseen ("he'll end up dead in a ditch", "acabará muerto", "早晚死在沟里"), not what people
believed ("the brother the village swore had drowned": that is a return, when he is here),
and not denied. The words are data (``dr_*`` classes of the closure lexicon).
"""

from __future__ import annotations

import re

from engine.gm.closure_rules.entities import YOU
from engine.gm.closure_rules.events import modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.text import Doc

_ZH_PEOPLE = tuple("人者客汉匠夫妇娘婆翁童")
_ZH_AGO = re.compile(
    r"(?:[一二两三四五六七八九十几多数百]+|\d+)个?(?:年|冬|夏|春|秋|月|星期|礼拜|周|天|日)(?:以|之)?前"
)


def distant(reading: Reading, start: int) -> bool:
    """A time long past named in the clause at ``start``: a span of years, winters, months…
    with "ago"/"back" after it or "last" before it ("three winters back", "last spring"),
    "hace" before it ("hace tres inviernos"), "前" after it ("三年前")."""
    doc = reading.doc
    clause = doc.clause_at(start)
    units = [h for h in doc.hits.get("dr_units", ()) if doc.clause_at(h.start) == clause]
    agos = [h for h in doc.hits.get("dr_ago", ()) if doc.clause_at(h.start) == clause]
    lasts = [h for h in doc.hits.get("dr_last", ()) if doc.clause_at(h.start) == clause]
    if doc.language == "zh":
        said = doc.text[clause.start : clause.end]
        return bool(lasts) or bool(_ZH_AGO.search(said))
    for unit in units:
        if any(0 <= a.first - unit.last <= 1 for a in agos if doc.language == "en"):
            return True
        if any(0 <= unit.first - a.last <= 3 for a in agos if doc.language == "es"):
            return True
        if any(0 <= unit.first - a.last <= 1 or 0 <= a.first - unit.last <= 1 for a in lasts):
            return True
    return False


def hypothetical(reading: Reading, start: int) -> bool:
    """Feared, threatened or foreseen in its sentence before ``start`` ("sooner or later",
    "a este paso", "早晚", "she fears")."""
    doc = reading.doc
    sentence = doc.clause_at(start).sentence
    return any(
        doc.clause_at(h.start).sentence == sentence and h.start < start
        for h in doc.hits.get("dr_hypothetical", ())
    )


def believed(reading: Reading, start: int) -> bool:
    """What people believed, before ``start`` in its sentence ("the village swore had
    drowned", "daban por muerto", "都以为他淹死了")."""
    doc = reading.doc
    sentence = doc.clause_at(start).sentence
    return any(
        doc.clause_at(h.start).sentence == sentence and h.start < start
        for h in doc.hits.get("dr_belief", ())
    )


def stated(reading: Reading, hit: Hit, *, own_negation: bool = False) -> bool:
    """Said by the narrator as so: not quoted, asked, wished, conditional or denied. With
    ``own_negation`` the phrase holds its own negation ("no longer breathing", "再也不动了"):
    only one before it denies it."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    if clause.quoted or clause.question:
        return False
    if modal(doc, clause, hit.start, hit.first, hit.first, form=False):
        return False
    if own_negation:
        return not _negated_before(doc, hit)
    return not negated(doc, clause, hit.start, hit.first, hit.last, own=False)


def _negated_before(doc: Doc, hit: Hit) -> bool:
    clause = doc.clause_at(hit.start)
    return any(
        clause.start <= n.start and n.end <= hit.start and hit.first - n.last <= 3
        for n in doc.hits.get("negations", ())
    )


def inner_negation(reading: Reading, start: int, end: int) -> bool:
    """The death phrase holds a negation of its own ("再也不动了", "ya no respira")."""
    return any(start <= h.start < end for h in reading.doc.hits.get("negations", ()))


def being_before(reading: Reading, start: int) -> bool:
    """Someone is named before ``start`` in its sentence (a character, a person, an animal,
    a Chinese noun of a person, "外乡人", "老者"), or, in a sentence that names nobody, in the
    sentence before."""
    doc = reading.doc
    sentence = doc.clause_at(start).sentence
    for wanted in (sentence, sentence - 1):
        people = [
            m
            for m in reading.mentions
            if m.ref.person and doc.clause_at(m.start).sentence == wanted and m.start < start
        ]
        if people or _zh_person(doc, sentence, start):
            return True
        named = [m for m in reading.mentions if doc.clause_at(m.start).sentence == sentence]
        if named:
            return False
    return False


def _zh_person(doc: Doc, sentence: int, start: int) -> bool:
    return doc.language == "zh" and any(
        len(t.text) >= 2
        and t.text.endswith(_ZH_PEOPLE)
        and t.start < start
        and doc.clause_at(t.start).sentence == sentence
        for t in doc.tokens
    )


def someone_in(reading: Reading, sentence: int) -> bool:
    """A being other than "you" is named in the sentence."""
    doc = reading.doc
    return any(
        m.ref.person and m.ref != YOU and doc.clause_at(m.start).sentence == sentence
        for m in reading.mentions
    ) or _zh_person(doc, sentence, len(doc.text))
