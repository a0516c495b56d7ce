"""Another player's character doing something the verb lexicon has no class for (seed 001
"hace actuar … a otro jugador"): "Ada slams her fist on the table", "The cleric in the grey
cloak pockets the coin".

In English a finite verb stands right after its subject: when a mention of another player's
character opens its clause and the next word (past adverbs) has a verb's form (a third
person "-s" or a past "-ed") and goes on to an object ("slams her fist", "shoulders the
door"), she is the one who acts. Words of seeming, looking and feeling (``chain_not_deeds``:
"Ada seems…", "Ada looks tired") are no deeds; neither is a clause asked, wished or negated.
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import Mention, Ref
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.several_chain import skippable, verb_like
from engine.gm.closure_rules.text import Clause, Doc

_OPENERS = ("articles", "determiners")


def unclassed_deed(reading: Reading, others: set[Ref]) -> bool:
    doc = reading.doc
    if doc.language != "en":
        return False
    events = {e.start for e in reading.events}
    for mention in reading.mentions:
        if mention.ref not in others or mention.pronoun == "obj":
            continue
        clause = doc.clause_at(mention.start)
        if clause.quoted or clause.question or not _opens(doc, clause, mention):
            continue
        n = next((k for k, t in enumerate(doc.tokens) if t.start >= mention.end), None)
        while n is not None and n < clause.last and skippable(doc, doc.tokens[n]):
            n += 1
        k = _past_modifier(doc, clause, n)
        if k != n and k is not None and not _hedged(doc, clause, doc.tokens[k].start):
            return True  # "your companion in grey pockets an apple"
        if n is None or n >= clause.last or doc.tokens[n].start in events:
            continue
        if _finite(doc, clause, n) and not _hedged(doc, clause, doc.tokens[n].start):
            return True
    return False


def _opens(doc: Doc, clause: Clause, mention: Mention) -> bool:
    """Only joining words, adverbs or an article stand before the mention in its clause."""
    before = [t for t in doc.tokens[clause.first : clause.last] if t.end <= mention.start]
    return all(skippable(doc, t) or any(doc.words.has(t, k) for k in _OPENERS) for t in before)


def _finite(doc: Doc, clause: Clause, n: int) -> bool:
    word = doc.tokens[n].fold
    return word.endswith(("s", "ed")) and not word.endswith("ss") and verb_like(doc, clause, n)


def _hedged(doc: Doc, clause: Clause, start: int) -> bool:
    """A wish or a condition in the sentence around the deed, a negation before it (one after
    it belongs to a clause of its own: "pockets an apple when nobody is looking")."""
    sentence = [c for c in doc.clauses if c.sentence == clause.sentence]
    opening = sentence[0].start if sentence else clause.start
    if any(opening <= h.start < start for h in doc.of("negations")):
        return True
    return any(opening <= h.start < clause.end for h in doc.of("modals", "conditionals"))


def _past_modifier(doc: Doc, clause: Clause, n: int | None) -> int | None:
    """Past a short phrase that describes her ("your companion in grey pockets…", "the
    woman with the scar nods"): a preposition and up to three words before the verb."""
    if n is None or n >= clause.last or doc.tokens[n].fold not in doc.words.list("noun_preps"):
        return n
    for k in range(n + 2, min(clause.last, n + 5)):
        if _finite(doc, clause, k):
            return k
    return n
