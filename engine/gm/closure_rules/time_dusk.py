"""The time of day told as arriving, and "until" told as done (seed 001 "Adelanta el tiempo";
issue 34 §1): two constructions of the time-advanced rule that phrase lists missed.

A time of day is the subject of a verb of coming or going, in any indicative tense and either
order ("ha caído la tarde", "la noche ya se echa encima", "evening has crept in", "晌午过了"),
or it finds someone ("el alba te encuentra todavía en la barra", "night catches you on the
road"). After a preposition it only dates something ("llega por la tarde", "at night").
"Until" before the clock moving is done, not planned, when nothing in the sentence before it
wishes, plans or conditions it ("esperas hasta que anochece", "you sit until the sun goes
down"; "hasta que anochezca" has no indicative marker to find). The words are data
(``tm_day_*`` and ``tm_until`` classes of the closure lexicon).
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.gm.closure_rules.events import modal
from engine.gm.closure_rules.lexicon import Hit, words
from engine.gm.closure_rules.text import Clause, Doc

_ES_FUTURE = re.compile(r"(?:rás|rá|rán|remos|réis|ría|rías|rían|ríamos)$")
_NOUN_OPENERS = ("articles", "determiners")
_BEFORE = 3  # words between the time of day and its verb when the time comes first
_AFTER = 2  # … when the verb comes first ("cae ya la noche")


def day_arrives(doc: Doc) -> list[Hit]:
    """Each time of day told as coming, going or finding someone."""
    if not doc.spaced:
        return _zh_day_passes(doc)
    out: list[Hit] = []
    comes, finds = doc.of("tm_day_verbs"), doc.of("tm_day_finds")
    for noun in doc.of("tm_day_nouns"):
        if _dated(doc, noun):
            continue
        clause = doc.clause_at(noun.start).index
        for verb in (*comes, *finds):
            if doc.clause_at(verb.start).index != clause:
                continue
            ahead = 0 <= verb.first - noun.last <= _BEFORE
            behind = verb.key == "tm_day_verbs" and 0 <= noun.first - verb.last <= _AFTER
            if (ahead and _glued(doc, noun.last, verb.first)) or (
                behind and _glued(doc, verb.last, noun.first)
            ):
                out.append(
                    Hit(
                        "tm_day",
                        min(noun.start, verb.start),
                        max(noun.end, verb.end),
                        min(noun.first, verb.first),
                        max(noun.last, verb.last),
                    )
                )
    return out


def _glued(doc: Doc, start: int, end: int) -> bool:
    """Only auxiliaries, clitics and adverbs of pace between the time and its verb ("la
    noche ya se echa encima", "dawn finds you"): "the night watchman finds you" has a noun."""
    return all(doc.words.has(t, "tm_day_glue") for t in doc.tokens[start:end])


def _dated(doc: Doc, noun: Hit) -> bool:
    """ "por la tarde", "de la noche", "at night": the time dates something."""
    if noun.first == 0:
        return False
    before = doc.tokens[noun.first - 1]
    return any(doc.words.has(before, k) for k in ("object_preps", "place_to", "tm_day_preps"))


def _zh_day_passes(doc: Doc) -> list[Hit]:
    """Chinese: a time of day, then "过了" / "已过" / "过去了" ("晌午过了", "半夜早已过去")."""
    pattern = _zh_pattern(doc.language)
    if pattern is None:
        return []
    return [_hit(doc, m.start(), m.end()) for m in pattern.finditer(doc.text)]


@lru_cache(maxsize=4)
def _zh_pattern(language: str) -> re.Pattern[str] | None:
    book = words(language)
    nouns, passes = book.list("tm_day_nouns"), book.list("tm_day_verbs")
    if not nouns or not passes:
        return None
    alt = "|".join(sorted(map(re.escape, nouns), key=len, reverse=True))
    went = "|".join(sorted(map(re.escape, passes), key=len, reverse=True))
    return re.compile(f"(?:{alt})(?:已经|早已|早就|早|都|也)?(?:{went})")


def _hit(doc: Doc, start: int, end: int) -> Hit:
    spans = [n for n, t in enumerate(doc.tokens) if t.end > start and t.start < end]
    first = spans[0] if spans else 0
    return Hit("tm_day", start, end, first, (spans[-1] + 1) if spans else first + 1)


def until_done(doc: Doc, clause: Clause, hit: Hit) -> bool:
    """The only modal before ``hit`` is an "until" of its clause, and the sentence before it
    neither wishes, plans nor conditions ("you'll wait until", "decides to stay until")."""
    untils = [h for h in doc.of("tm_until") if clause.start <= h.start and h.end <= hit.start]
    if not untils:
        return False
    opening = min(c.start for c in doc.clauses if c.sentence == clause.sentence)
    for other in doc.hits.get("modals", ()):
        if not opening <= other.start < hit.start:
            continue
        if not any(other.start <= u.start and u.end <= other.end for u in untils):
            return False
    first = untils[0]
    return not modal(doc, clause, first.start, first.first, first.first, form=False)


def planned_after(doc: Doc, clause: Clause, hit: Hit) -> bool:
    """A future after the time in its clause: "Mañana al amanecer saldrá la caravana", "at
    dawn the caravan will leave" (``tm_future`` words, or a Spanish future form)."""
    if any(hit.end <= h.start < clause.end for h in doc.of("tm_future")):
        return True
    if doc.language != "es":
        return False
    for n, token in enumerate(doc.tokens):
        if not hit.end <= token.start < clause.end or len(token.text) <= 4:
            continue
        if not _ES_FUTURE.search(token.text.lower()) or doc.words.has(token, "object_preps"):
            continue  # "detrás"
        before = doc.tokens[n - 1] if n else None
        if before is None or not any(doc.words.has(before, k) for k in _NOUN_OPENERS):
            return True  # "saldrá"; not "la herrería"
    return False
