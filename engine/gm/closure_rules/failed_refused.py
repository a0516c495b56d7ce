"""A handing over that the receiver turns down by a gesture (seed 001 "narra como hecho una
tool que falló"): "you hold out the coins, but Hilda shakes her head", "le tiendes las monedas,
pero Marta niega con la cabeza", "你把钱递过去，老板娘却摇了摇头". Nothing changed hands; the
gesture words are data (``ft_refuse``).
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import YOU
from engine.gm.closure_rules.events import Event, negated
from engine.gm.closure_rules.facts import Reading


def turned_down(reading: Reading, event: Event) -> bool:
    """Someone else's gesture of refusal after the handing over, in its sentence."""
    doc = reading.doc
    for hit in doc.of("ft_refuse"):
        clause = doc.clause_at(hit.start)
        if hit.start < event.end or clause.sentence != event.clause.sentence:
            continue
        if clause.quoted or negated(doc, clause, hit.start, hit.first, hit.last):
            continue
        if any(m.ref == YOU and clause.start <= m.start < hit.start for m in reading.mentions):
            continue  # "you shake your head": the player's, not the receiver's
        return True
    return False
