"""A deal offered and turned down (seed 001 "cierra un trato sin registrarlo": only a closed
deal counts): the pledge of a refused taking, the coins pushed back.

- A refusal reaches the terms of its taking: in "Hilda refuses to take your dagger as a
  pledge" the pledge phrase belongs to the negated "take", so it is no pledge either.
- A bargain closed on a condition is closed: the condition is one of its terms.
- A counterpart's sign of refusal in the same sentence ("…, but she shakes her head", "pero
  niega con la cabeza", "老板娘却摇了摇头", "te lo devuelve") turns a handing-over into an
  offer.
"""

from __future__ import annotations

from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading

_TAKING = frozenset(["accept", "acquire", "give", "pay", "buy", "sell", "pawn", "drop"])


def closes_on_terms(event: Event, reading: Reading) -> bool:
    """A bargain closed on a condition ("…half your debt if you find the chalice; the deal is
    struck", "si encuentras el cáliz…; trato hecho"): the "if" is one of its terms, so the
    closing is told as done when its own clause holds no wish, condition nor denial."""
    clause = event.clause
    if event.key != "deal" or event.negated or clause.question:
        return False
    doc = reading.doc
    hits = doc.of("modals", "conditionals", "negations")
    if any(clause.start <= h.start < clause.end for h in hits):
        return False
    opening = next(c for c in doc.clauses if c.sentence == clause.sentence)
    return not any(  # "If she agrees, the deal is struck": the condition governs the deal
        opening.start <= h.start < opening.start + 4 for h in doc.of("conditionals")
    )


def declined(event: Event, reading: Reading) -> bool:
    return _refused_terms(event, reading) or _turned_down(event, reading)


def _refused_terms(event: Event, reading: Reading) -> bool:
    sentence = event.clause.sentence
    return any(
        e.clause.sentence == sentence and e.start < event.start and e.negated and e.key in _TAKING
        for e in reading.events
    ) and not any(
        e.clause.sentence == sentence and e.start < event.start and e.asserted and e.key in _TAKING
        for e in reading.events
    )


def _turned_down(event: Event, reading: Reading) -> bool:
    doc = reading.doc
    sentence = event.clause.sentence
    return any(
        doc.clause_at(h.start).sentence == sentence and h.start >= event.end
        for h in doc.of("deal_turned_down")
    )
