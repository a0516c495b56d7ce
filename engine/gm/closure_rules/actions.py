"""The player's message cut into its actions (seed 001 "Resuelve más de una acción por mensaje";
issue 34 §2: "Abro la puerta, cojo la gema y huyo" resolves exactly one action).

A message holds several actions when, after a comma or a joining word ("and", "then", "y",
"luego", "然后", "再", "、"), a new clause opens with a verb of its own, past a subject
pronoun ("I", "yo", "我") and adverbs: "cojo la cuerda y la gema" is one action, "cojo la
cuerda y huyo" two. The engine resolves the first (``engine.gm.play``), tells the master that
the rest waits (``tell_first``), and offers the rest as suggestions.
"""

from __future__ import annotations

from itertools import pairwise

from engine.gm.brief import brief
from engine.gm.closure_rules.events import VERBS
from engine.gm.closure_rules.text import Clause, Doc, read_doc
from engine.gm.closure_rules.tokens import Token

STARTS = tuple(k for k in VERBS if k not in ("gesture", "posture", "volition", "speech", "own"))
_EDGES = " \t\n,;:，、；：.。!！"


def action_clauses(text: str, language: str) -> list[str]:
    """``text`` as its actions, in order; one action gives ``[text]``."""
    if not text.strip():
        return [text]
    doc = read_doc(text, language)
    starts = [0]
    for clause in doc.clauses[1:]:
        if clause.quoted or not _opens(doc, clause):
            continue
        new_sentence = doc.clauses[clause.index - 1].sentence != clause.sentence
        if new_sentence or _joined(doc, clause.start):
            starts.append(clause.start)
    starts = [s for n, s in enumerate(starts) if n == 0 or _has_verb(doc, starts[n - 1], s)]
    cuts = [*starts, len(text)]
    parts = [_trim(doc, text[a:b]) for a, b in pairwise(cuts)]
    parts = [p for p in parts if p]
    return parts if len(parts) > 1 else [text]


def _has_verb(doc: Doc, start: int, end: int) -> bool:
    """The part before a cut holds a verb: "Hilda, give me the key" is one action, the
    name a call, not a deed."""
    return any(start <= h.start < end for k in STARTS for h in doc.hits.get(k, ()))


def _joined(doc: Doc, start: int) -> bool:
    """What stands between this clause and the one before is a comma or a coordinating
    word: not "que", "which", "when" (a clause inside the action)."""
    before = doc.text[:start].rstrip()
    if before.endswith((",", ";", "，", "、", "；")):
        return True
    last = [t for t in doc.tokens if t.end <= start][-1:]
    return bool(last) and doc.words.has(last[0], "coordinators")


def _opens(doc: Doc, clause: Clause) -> bool:
    """The clause starts with a verb of an action, past a subject pronoun and adverbs."""
    skip = doc.words.stems("joiners") | doc.words.stems("subjects")
    words = doc.tokens[clause.first : clause.last]
    n = 0
    while n < len(words) and (words[n].fold in skip or _adverb(words[n])):
        n += 1
    if n >= len(words):
        return False
    first = words[n]
    if any(
        h.first == clause.first + n or (not doc.spaced and h.start == first.start)
        for key in STARTS
        for h in doc.hits.get(key, ())
    ):
        return True
    # a verb that is also a preposition opens its clause as the verb: "y bajo al sótano"
    return any(len(p) == 1 and k in STARTS for p, k in doc.words.index.get(first.stem, ()))


def _adverb(token: Token) -> bool:
    return token.fold.endswith(("ly", "mente")) and len(token.fold) > 4


def _trim(doc: Doc, part: str) -> str:
    """A part without the joining words at its edges ("cojo la gema y" → "cojo la gema")."""
    text = part.strip(_EDGES)
    space = " " if doc.spaced else ""
    for word in sorted(doc.words.list("coordinators"), key=len, reverse=True):
        if text.lower().startswith(word + space):
            text = text[len(word) :].strip(_EDGES)
        if text.lower().endswith(space + word):
            text = text[: len(text) - len(word)].strip(_EDGES)
    return text


def tell_first(action: str, rest: list[str], language: str) -> str:
    """The action as the master reads it when the message held more: resolve only this, the
    rest waits (it is offered back as suggestions)."""
    if not rest:
        return action
    words = brief(language)
    if "turn_rest" not in words.data:
        return action
    return words.t("turn_rest", action=action, rest="; ".join(rest))
