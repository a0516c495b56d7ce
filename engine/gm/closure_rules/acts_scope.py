"""What a narration leaves to another player (seed 001 "hace actuar … a otro jugador"): the
states, the not-yets and the open choices that look like her deeds but decide nothing.

- A state after a copula ("Ada is close enough", "Bruno está cerca"): an adjective or a
  participle that shares a verb's form, not a deed (a progressive "is leaving" still is).
- A not-yet ("she has not said", "todavía no ha decidido", "她还没说"): the narrator tells
  that nothing has been done so far, leaving the deed to her player.
- A choice left open anywhere in the sentence ("…, if she cares to", "si quiere", "由她决定",
  "what she does is up to her"): whatever the sentence tells of her is only a possibility.
"""

from __future__ import annotations

from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading

_GERUNDS = {"en": ("ing",), "es": ("ando", "iendo", "yendo")}


def left_to_her(reading: Reading, event: Event) -> bool:
    """The event is no deed of hers: a state, a not-yet, or a sentence that leaves it open."""
    return _state(reading, event) or _not_yet(reading, event) or _left_open(reading, event)


def _state(reading: Reading, event: Event) -> bool:
    doc = reading.doc
    if not doc.spaced:
        return False
    at = next((n for n, t in enumerate(doc.tokens) if t.start >= event.start), None)
    if at is None or at == 0 or doc.tokens[at - 1].start < event.clause.start:
        return False
    word = doc.tokens[at].fold
    if word.endswith(_GERUNDS.get(doc.language, ())):
        return False  # "Ada is leaving": she does it now
    return doc.tokens[at - 1].fold in doc.words.list("acts_copulas")


def _not_yet(reading: Reading, event: Event) -> bool:
    clause = event.clause
    return any(clause.start <= h.start < event.start for h in reading.doc.of("acts_not_yet"))


def _left_open(reading: Reading, event: Event) -> bool:
    doc = reading.doc
    sentence = event.clause.sentence
    return any(doc.clause_at(h.start).sentence == sentence for h in doc.of("acts_left_open"))
