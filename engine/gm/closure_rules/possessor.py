"""Whose a noun is (issue 34 §1: "judge claims by entity and effect"): a deed or a state told
with a noun instead of a verb belongs to the one who owns the noun ("Ada's answer", "la
respuesta de Bruno", "林岚的回答"; "Hilda's ghost", "el fantasma de Marta", "小梅的鬼魂").

The owner is a mention of the world's entities written next to the noun the way each language
marks possession: English "X's N", "X’s N", "her N", "the N of X"; Spanish "el N de X", "su N"
(with a pronoun resolved); Chinese "X的N". Nothing else links them: "a ghost story" or "you
wait for Ada's answer" name a noun, but the second one is not the clause's subject, which
``opens_clause`` tells apart.
"""

from __future__ import annotations

import re

from engine.gm.closure_rules.entities import Mention
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.text import Doc

_BEFORE: dict[str, re.Pattern[str] | None] = {
    "en": re.compile(r"^\s*['’]s\s+(?:\w+\s+)?$"),
    "es": None,
    "zh": re.compile(r"^的$"),
}
_AFTER: dict[str, re.Pattern[str] | None] = {
    "en": re.compile(r"^\s+of\s+$"),
    "es": re.compile(r"^\s+del?\s+$"),
    "zh": None,
}
_PRONOUN_GAP = re.compile(r"^\s+(?:\w+\s+)?$")
_ZH_PRONOUN_GAP = re.compile(r"^的$")


def owner(doc: Doc, mentions: list[Mention], hit: Hit) -> Mention | None:
    """The mention that owns the noun at ``hit``, if one is written as its owner."""
    before = [m for m in mentions if m.end <= hit.start and hit.start - m.end <= 24]
    if before:
        last = before[-1]
        gap = doc.text[last.end : hit.start]
        mark = _BEFORE.get(doc.language)
        if mark is not None and mark.match(gap):
            return last
        pronoun_gap = _ZH_PRONOUN_GAP if doc.language == "zh" else _PRONOUN_GAP
        if last.pronoun and pronoun_gap.match(gap) and not doc.in_quotes(last.start):
            return last  # "her answer", "su respuesta", "她的回答"
    mark = _AFTER.get(doc.language)
    after = [m for m in mentions if m.start >= hit.end and m.start - hit.end <= 6]
    if mark is not None and after and mark.match(doc.text[hit.end : after[0].start]):
        return after[0]
    return None


def opens_clause(doc: Doc, hit: Hit, who: Mention) -> bool:
    """The owned noun is what its clause is about: only articles, determiners and the owner
    stand before it ("Ada's answer is…", "La respuesta de Bruno…", "林岚的回答是…")."""
    clause = doc.clause_at(hit.start)
    start = min(hit.start, who.start)
    for token in doc.tokens[clause.first : clause.last]:
        if token.start >= start:
            break
        if not any(doc.words.has(token, k) for k in ("articles", "determiners")):
            return False
    return True
