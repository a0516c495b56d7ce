"""A list of steps under one verb (seed 001 "Resuelve más de una acción por mensaje"): "you
take the rope, then the tankard, then the steps down to the cellar", "coges la cuerda, luego
la jarra y por último bajas", "你拿了绳子，又拿了酒碗，最后钻进了地窖".

Words of sequence ("then", "luego", "por último", "又", "最后") after a deed of the player's
mark the next step even where the verb is left out: two of them in the sentence after the
first deed make three steps, more than one action. Not under a wish, a plan or a condition.
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import Ref
from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit


def stepped(reading: Reading, deeds: list[Event], me: set[Ref]) -> bool:
    doc = reading.doc
    marks = [h for h in doc.of("several_then", "sequence_then") if not doc.in_quotes(h.start)]
    hedges = doc.of("modals", "conditionals", "several_plan_words")
    for deed in deeds:
        if deed.actor not in me or deed.quoted or not deed.asserted:
            continue
        sentence = deed.clause.sentence
        if any(doc.clause_at(h.start).sentence == sentence for h in hedges):
            continue
        after = [
            h for h in marks if h.start >= deed.end and doc.clause_at(h.start).sentence == sentence
        ]
        if _steps(after) >= 2:
            return True
    return False


def _steps(marks: list[Hit]) -> int:
    """Marks apart from each other: "and then" is one step, not two."""
    count, end = 0, -2
    for hit in sorted(marks, key=lambda h: h.start):
        if hit.start > end + 1:
            count += 1
        end = max(end, hit.end)
    return count
