"""A place looked for is not a place there (seed 001 "inventa un lugar"): "You look for a
staircase, a side door, anything", "Buscas una escalera, una puerta lateral", "你想找楼梯、侧门".

The objects of a verb of seeking, and the list that follows it in its sentence until a clause
with a verb of its own, are only wanted: the narration does not claim they exist.
"""

from __future__ import annotations

from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit


def sought(reading: Reading, hit: Hit) -> bool:
    doc = reading.doc
    sentence = doc.clause_at(hit.start).sentence
    seeks = [
        s
        for s in doc.of("place_seek")
        if s.end <= hit.start and doc.clause_at(s.start).sentence == sentence
    ]
    if not seeks:
        return False
    start = seeks[-1].end
    return not any(start <= e.start < hit.start and e.key != "search" for e in reading.events)
