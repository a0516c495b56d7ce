"""An item told as carried by the player (seed 001 "narra como hecho una tool que falló"; issue
34 §1): in his pocket, purse, pack or sleeve ("the key is already in your pocket", "la llave ya
está en tu bolsillo", "钥匙已经在你兜里了"). The place is a carrier noun owned by "you" after a
word of place; the words are data (``ft_carrier_nouns`` and ``ft_carrier_preps``).
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import YOU
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit

_NEAR = 2  # tokens from the word of place to the carrier ("in your coat pocket")


def carried_hits(reading: Reading) -> list[Hit]:
    """Each "in your pocket": a word of place, "your", a carrier noun, in that order."""
    doc = reading.doc
    yours = [m for m in reading.mentions if m.ref == YOU]
    out: list[Hit] = []
    for noun in doc.of("ft_carrier_nouns"):
        owner = [m for m in yours if m.end <= noun.start and noun.start - m.end <= 3]
        if not owner:
            continue
        at = min(m.start for m in owner)
        preps = [
            h
            for h in doc.of("ft_carrier_preps")
            if h.end <= at and _tokens_between(reading, h.end, at) <= _NEAR
        ]
        if preps and doc.clause_at(preps[-1].start) == doc.clause_at(noun.start):
            first = preps[-1]
            out.append(Hit("ft_have", first.start, noun.end, first.first, noun.last))
    return out


def _tokens_between(reading: Reading, start: int, end: int) -> int:
    return sum(1 for t in reading.doc.tokens if start <= t.start and t.end <= end)


def someone_elses(reading: Reading, hit: Hit) -> bool:
    """The place of having belongs to someone else: "en el cinto de Marta", "in the belt of
    the smith" (a word of ``ft_of`` and a person right after it)."""
    doc = reading.doc
    if not doc.spaced or hit.last >= len(doc.tokens):
        return False
    if not doc.words.has(doc.tokens[hit.last], "ft_of"):
        return False
    after = doc.tokens[hit.last].end
    clause = doc.clause_at(hit.start)
    return any(
        after < m.start <= after + 8 and m.start < clause.end and m.ref.person and m.ref != YOU
        for m in reading.mentions
    )
