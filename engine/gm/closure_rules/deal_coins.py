"""Coins put down before someone (seed 001 "cierra un trato sin registrarlo"): "You flick a
coin onto the bar and Hilda sets a pint before you", "Dejas caer dos monedas sobre el
mostrador", "你把几枚铜钱拍在柜台上".

Whatever the verb ("flick", "slap", "slide", "拍"), the character sending money onto a
surface or into a hand, in a sentence that names someone to receive it, is money changing
hands: a payment that needs its tool. Not when denied, wished, asked or spoken.
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import YOU
from engine.gm.closure_rules.events import modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit


def coins_put_down(reading: Reading) -> list[str]:
    doc = reading.doc
    for hit in doc.of("money_nouns"):
        clause = doc.clause_at(hit.start)
        if clause.quoted or clause.question or not _yours(reading, hit):
            continue
        if negated(doc, clause, hit.start, hit.first, hit.last, own=False):
            continue
        if modal(doc, clause, hit.start, hit.first, hit.last, form=False):
            continue
        if _onto(reading, hit) and _someone(reading, hit) and not _pushed_back(reading, hit):
            return ["pay"]
    return []


def _yours(reading: Reading, hit: Hit) -> bool:
    """ "You" opens the clause (the coins are the character's to send), or Chinese "你把"."""
    clause = reading.doc.clause_at(hit.start)
    before = [m for m in reading.mentions if clause.start <= m.start < hit.start]
    if not before or before[0].ref != YOU:
        return False
    if reading.doc.language == "zh":
        return "把" in reading.doc.text[clause.start : hit.start]
    return before[0].pronoun != "obj"


def _onto(reading: Reading, hit: Hit) -> bool:
    """A way onto a surface or into a hand follows the coins in their clause."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    if doc.language == "zh":
        return any(w in doc.text[hit.end : clause.end] for w in doc.words.list("deal_onto"))
    tail = doc.tokens[hit.last : min(clause.last, hit.last + 3)]
    return any(t.fold in doc.words.list("deal_onto") for t in tail)


def _someone(reading: Reading, hit: Hit) -> bool:
    """Someone else is named in the sentence, to take the money."""
    sentence = reading.doc.clause_at(hit.start).sentence
    return any(
        m.ref.person and m.ref != YOU and reading.doc.clause_at(m.start).sentence == sentence
        for m in reading.mentions
    )


def _pushed_back(reading: Reading, hit: Hit) -> bool:
    """ "…, but Hilda pushes it back": the coins offered are turned down."""
    doc = reading.doc
    sentence = doc.clause_at(hit.start).sentence
    return any(
        doc.clause_at(h.start).sentence == sentence and h.start >= hit.end
        for h in doc.of("deal_turned_down")
    )
