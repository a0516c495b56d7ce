"""A place called by its own name (seed 001 "inventa un lugar"): "You cross the lane to the
Blue Boar", "Cruzas la calle hasta la Taberna del Tuerto".

Where a move goes to a capitalised name ("the Blue Boar", "la Taberna del Tuerto", past its
article, its joining words "of", "del", "de la" kept), the whole name is the destination to
judge against the world, even when one of its words reads as something else ("Boar", an
animal; "Taberna", a kind of place the world has): only the world's own names ground it.
A name that is one of the world's people or things is no place; a name that only begins with
a word of the world's ("la Taberna del Tuerto" where the inn is "la taberna") is another.
"""

from __future__ import annotations

from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.place_motion import moves
from engine.gm.closure_rules.text import Doc


def named_places(reading: Reading) -> list[Hit]:
    doc = reading.doc
    out: list[Hit] = []
    for event, first in moves(reading):
        to = _to(doc, first, event.clause.last)
        hit = _name(reading, to + 1, event.clause.last) if to is not None else None
        if hit is not None and hit not in out:
            out.append(hit)
    return out


def _to(doc: Doc, first: int, last: int) -> int | None:
    """A preposition of direction within a few words after the verb."""
    for n in range(max(first - 1, 0), min(first + 4, last)):
        if doc.words.has(doc.tokens[n], "place_to"):
            return n
    return None


def _name(reading: Reading, first: int, last: int) -> Hit | None:
    """The capitalised name from ``first`` (past an article), with its joining words."""
    doc = reading.doc
    n = first
    while n < last and any(doc.words.has(doc.tokens[n], k) for k in ("articles", "determiners")):
        n += 1
    start = n
    end = n
    while n < last:
        token = doc.tokens[n]
        if token.text[:1].isupper():
            end = n + 1
        elif token.fold not in doc.words.list("place_name_links"):
            break
        n += 1
    if end == start:
        return None
    span = (doc.tokens[start].start, doc.tokens[end - 1].end)
    capitals = [t for t in doc.tokens[start:end] if t.text[:1].isupper()]
    for mention in (m for m in reading.mentions if m.ref.id):
        if all(mention.start <= t.start < mention.end for t in capitals):
            return None  # one of the world's people, things or places, by its name
    return Hit("place_nouns", span[0], span[1], start, end)
