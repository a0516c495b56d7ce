"""Clauses whose deeds are no new action of the player's (seed 001 "Resuelve más de una
acción por mensaje"): a sentence that calls its deeds a plan, and the mishap that ends an
attempt.

- A plan: the sentence names what it tells a plan, an idea, something for later ("Taking the
  rope and leaving is a plan, not yet a deed", "Pensabas bajar luego a la bodega", "拿绳子、
  去后院，这还只是打算"): nothing in it is done.
- A mishap: after a contrast ("but", "pero", "却") a thing or a body part turns against the
  attempt ("but your boot catches the edge and you sprawl", "pero la bota se engancha y
  acabas en el suelo"): what follows is how the one action ended, not a second one.
"""

from __future__ import annotations

from engine.gm.closure_rules.facts import Reading


def scoped_out(reading: Reading) -> set[int]:
    """The clause indices of planned sentences and of mishaps."""
    return _planned(reading) | _mishap(reading)


def _planned(reading: Reading) -> set[int]:
    doc = reading.doc
    plans = {doc.clause_at(h.start).sentence for h in doc.of("several_plan_words")}
    return {c.index for c in doc.clauses if c.sentence in plans and not c.quoted}


def _mishap(reading: Reading) -> set[int]:
    doc = reading.doc
    out: set[int] = set()
    if not doc.spaced:
        return out  # "却" follows its subject: left to the chain
    for hit in doc.of("several_contrast"):
        clause = doc.clause_at(hit.start)
        after = doc.tokens[hit.last : hit.last + 1]
        if hit.start - clause.start > 3 or not after or after[0].start >= clause.end:
            continue
        if not any(doc.words.has(after[0], k) for k in ("determiners", "articles")):
            continue  # "but you…": a person goes on; "but your boot…": a thing turns
        out |= {
            c.index
            for c in doc.clauses[clause.index :]
            if c.sentence == clause.sentence and not c.quoted
        }
    return out
