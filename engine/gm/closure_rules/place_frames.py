"""When a place named in a narration is no claim that the character is there, or that it is
there (issue 34 §1, the unknown-place rule): it is asked about, denied, supposed, wished,
remembered, told as a story or reported from someone's mouth.

"Back room? There isn't one", "¿Un cuarto trasero? Aquí no hay tal cosa", "后屋？没有的事":
the room is asked back, a fragment ending in a question mark even inside quoted speech. "If
the place had a balcony…", "you wonder whether…", "the carters swap a ghost story about the
mill", "Tomás te cuenta que…", "小梅说她年轻时在府城…", "you were nearly killed on the east
road last week": the sentence is a supposition, a wondering, a story, hearsay or a memory. The
classes are data (``reported``, ``past_refs``, ``conditionals``, ``modals`` and the rule's own
``place_unreal``); the frame is found by position: before the place in its sentence, or in its
clause.
"""

from __future__ import annotations

import re

from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.text import Doc
from engine.gm.closure_rules.tokens import Token

_FRAGMENT_END = re.compile(r"[.!?。！？…»”\"」』]")
_ES_CONDITIONAL = re.compile(r"r(?:ía|ías|ían|íamos|íais)$")
_TO_SOMEONE = frozenset(["a", "to", "te", "le", "les", "me", "you", "him", "her", "them", "us"])
_ASKED_END = re.compile(r"^[^.!。！…]*?[?？]")


def unreal(reading: Reading, hit: Hit, *, asked: bool = True) -> bool:
    """The place at ``hit`` is framed as no fact of the scene (``asked``: a question counts;
    the narrator's own question still names a place he should not know, "Is it the Old Mill
    you mean?")."""
    return (
        (asked and asked_fragment(reading, hit))
        or _framed(reading, hit)
        or _supposed(reading, hit)
        or said_before(reading, hit.start)
    )


def _supposed(reading: Reading, hit: Hit) -> bool:
    """A supposition or a wish governs the place: a condition opening its sentence ("If the
    place had a balcony, you'd…"), a wish or a future before it in its clause ("he'll end up
    dead in a ditch", "Mataría por un baño"); "you can see the mill from here" is a fact."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    sentence = [c for c in doc.clauses if c.sentence == clause.sentence]
    opening = sentence[0].start if sentence else clause.start
    if any(opening <= h.start < hit.start for h in doc.hits.get("conditionals", ())):
        return True
    if any(clause.start <= h.start < hit.start for h in doc.hits.get("place_modals", ())):
        return True
    if doc.language != "es":
        return False
    before = doc.tokens[clause.first : hit.first]
    return any(_conditional(doc, clause.first + n, t) for n, t in enumerate(before))


def _conditional(doc: Doc, n: int, token: Token) -> bool:
    """A Spanish conditional ("mataría", "dormirías"), not a noun of the same ending ("la
    panadería"): no article, determiner or preposition just before it."""
    if len(token.text) <= 4 or not _ES_CONDITIONAL.search(token.text.lower()):
        return False
    before = doc.tokens[n - 1 : n] if n > 0 else []
    keys = ("articles", "determiners", "object_preps")
    return not any(doc.words.has(t, k) for t in before for k in keys)


def asked_fragment(reading: Reading, hit: Hit) -> bool:
    """The place stands in a fragment that ends in a question mark or opens with "¿", even
    inside speech ("«¿Un cuarto trasero? Aquí no hay…»")."""
    text = reading.doc.text
    start = hit.start
    while start > 0 and not _FRAGMENT_END.match(text[start - 1]) and text[start - 1] not in "«“":
        start -= 1
    if "¿" in text[start : hit.start]:
        return True
    return bool(_ASKED_END.match(text[hit.end : hit.end + 40].split("\n")[0]))


def said_before(reading: Reading, position: int) -> bool:
    """Someone's words told by the narrator before ``position`` in its sentence: a verb of
    speech followed by what was said ("Hilda mutters that…", "you tell Hilda about…",
    "Marta murmura que…", "le hablas del…", "小梅嘀咕说…")."""
    doc = reading.doc
    sentence = doc.clause_at(position).sentence
    for event in reading.events:
        if event.key not in ("speech", "tell", "talk") or event.quoted:
            continue
        if event.end > position or doc.clause_at(event.start).sentence != sentence:
            continue
        if not doc.spaced:
            return True
        if _link_after(reading, event.end):
            return True
    return False


def _link_after(reading: Reading, end: int) -> bool:
    """The verb's words follow: a linking word ("that", "about", "que", "del") right after
    it, or after the one spoken to ("tell Hilda about", "le hablas a Marta del")."""
    doc = reading.doc
    for token in [t for t in doc.tokens if t.start >= end][:4]:
        if doc.words.has(token, "place_report_links"):
            return True
        spoken_to = any(m.start <= token.start < m.end and m.ref.person for m in reading.mentions)
        if not spoken_to and token.fold not in _TO_SOMEONE:
            return False
    return False


def _framed(reading: Reading, hit: Hit) -> bool:
    """Hearsay, a story, a memory, a wondering: before the place in its sentence, or anywhere
    in its clause ("a ghost story about the mill", "on the east road last week")."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    keys = ("reported", "past_refs", "place_unreal")
    places = doc.hits.get("place_nouns", ())
    for frame in (h for k in keys for h in doc.hits.get(k, ())):
        if any(p.start <= frame.start < p.end for p in places):
            continue  # a place word ("a tomb", "坟"): no frame, but a place
        there = doc.clause_at(frame.start)
        if there.index == clause.index:
            return True
        if there.sentence == clause.sentence and frame.start < hit.start:
            return True
    return False
