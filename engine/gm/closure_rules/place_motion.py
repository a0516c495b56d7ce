"""Where a narration moves someone to (issue 34 §1, the unknown-place rule): the head noun of
the destination of a move, whatever the word, so that a place no list holds ("you step out
onto the veranda", "te escabulles hasta el lavadero") is still judged against the world.

A move is an event of the classes ``go``, ``enter``, ``arrive``, ``climb`` told by the
narrator, or a settling in (``place_settle``: "settles into", "se instala en"); its
destination is the noun phrase after a preposition of direction (``place_to``: "to", "into",
"onto", "hasta", "a") in the same clause. English heads stand last in their
phrase ("the narrow back scullery"), Spanish ones first ("el lavadero de atrás"); a room
word keeps its kind ("the billiard room", "la sala de billar"). Phrases that name one of the
world's entities, a thing near at hand (``place_not``: "the door", "la barra") or a direction
are no destination to judge. Chinese is left to the suffix reading (``place_suffixes``: its
place words end in a character of buildings and grounds).
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.text import Doc
from engine.gm.closure_rules.tokens import Token

MOVES = ("go", "enter", "arrive", "climb", "leave", "flee")
_MOVERS = ("you", "pc", "npc", "person")
_STOPS = ("object_preps", "conjunctions", "subordinators", "place_np_stop")
_SKIP = ("articles", "determiners", "place_adjectives")


def moves(reading: Reading) -> Iterator[tuple[Event, int]]:
    """Someone's told moves in a spaced language, with the first token after each verb (not
    smoke rising to the beams, nor cheeks going from pale to red)."""
    doc = reading.doc
    if not doc.spaced:
        return
    for event in reading.events:
        if event.key not in MOVES or not event.asserted or event.quoted:
            continue
        if event.actor is None or event.actor.kind not in _MOVERS:
            continue
        first = next((n for n, t in enumerate(doc.tokens) if t.start >= event.end), None)
        if first is not None:
            yield event, first


def destinations(reading: Reading) -> list[Hit]:
    """The head nouns of the places the narration moves someone into."""
    doc = reading.doc
    out: list[Hit] = []
    for event, first in moves(reading):
        own = first - 1  # the verb's own preposition: "te cuelas en", "duck into"
        inside = own >= 0 and doc.words.has(doc.tokens[own], "place_to")
        to = own if inside else _preposition(doc, first, event.clause.last)
        if to is None:
            continue
        hit = _head(reading, to + 1, event.clause.last)
        if hit is not None and hit not in out:
            out.append(hit)
    return [*out, *_settled(reading, out)]


def _settled(reading: Reading, taken: list[Hit]) -> list[Hit]:
    """Where someone settles in (``place_settle``: "settles into", "se instala en"): the
    phrase right after, as for a move."""
    doc = reading.doc
    out: list[Hit] = []
    for found in doc.hits.get("place_settle", ()):
        clause = doc.clause_at(found.start)
        if clause.quoted or clause.question:
            continue
        hit = _head(reading, found.last, clause.last)
        if hit is not None and hit not in taken and hit not in out:
            out.append(hit)
    return out


def _preposition(doc: Doc, first: int, last: int) -> int | None:
    """The first preposition of direction within a few words after the verb."""
    for n in range(first, min(first + 4, last)):
        if doc.words.has(doc.tokens[n], "place_to"):
            return n
        if any(doc.words.has(doc.tokens[n], k) for k in ("conjunctions", "place_from")):
            return None  # "goes from pale to red": a change, no move
    return None


def _head(reading: Reading, first: int, last: int) -> Hit | None:
    doc = reading.doc
    phrase = _phrase(doc, first, last)
    mentions = reading.mentions
    if not phrase or any(m.start < phrase[-1].end and phrase[0].start < m.end for m in mentions):
        return None  # nothing, or one of the world's entities: judged by name
    n = len(phrase) - 1 if doc.language == "en" else 0
    head = phrase[n]
    if not head.text.isalpha() or len(head.text) < 3 or _someone_or_near(doc, head):
        return None
    start, end = head.start, head.end
    if doc.words.has(head, "room_heads") and len(phrase) > 1:  # "the billiard room"
        other = phrase[n - 1] if doc.language == "en" else phrase[1]
        start, end = min(start, other.start), max(end, other.end)
    number = next(i for i, t in enumerate(doc.tokens) if t.start == head.start)
    return Hit("place_nouns", start, end, number, number + 1)


def _someone_or_near(doc: Doc, head: Token) -> bool:
    """A person, an animal or a thing near at hand, not a place: "the stranger", "the door"."""
    keys = (
        "place_not",
        "person_nouns",
        "companion_nouns",
        "animal_nouns",
        "generic_animals",
        "garment_nouns",
        "body_nouns",
        "container_nouns",
        "money_nouns",
    )
    return any(doc.words.has(head, k) for k in keys) or head.fold in doc.words.trades


def _phrase(doc: Doc, first: int, last: int) -> list[Token]:
    """The noun phrase from ``first``: articles and a few adjectives skipped, up to a
    preposition, a joining word or the clause's end."""
    words: list[Token] = []
    for token in doc.tokens[first:last]:
        if any(doc.words.has(token, k) for k in _STOPS):
            break
        if not words and any(doc.words.has(token, k) for k in _SKIP):
            continue
        words.append(token)
        if len(words) == 3:
            break
    return words
