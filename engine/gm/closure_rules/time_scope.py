"""When a time of day named in the narration is not the clock moving, and two more ways the
clock is told to move (seed 001 "Adelanta el tiempo"; issue 34 §1): for the time-advanced rule.

Not the clock: what happens as a habit ("the carters usually roll in by evening", "suelen
llegar al caer la tarde", "一般傍晚才到"), a likeness ("a moment that felt like an hour",
"长得像过了一个时辰") and, in Chinese, a plan ("打定主意，等天黑了再去"). The clock moves when
a bell or a watchman tells an hour ("the chapel bell is tolling midnight", "las campanas dan
la medianoche", "钟已经敲了三更") and, in Chinese, when a span is spent doing something
("端了整整一个礼拜的盘子"). The words are data (``tm_*`` classes of the closure lexicon).
"""

from __future__ import annotations

import re

from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.text import Doc

_ZH_STROKES = re.compile(r"(?:[一二两三四五六七八九十]+|\d+)(?:下|更)")
_ZH_SPENT = re.compile(
    r"[了过](?:(?:整整|足足)(?:[一二两三四五六七八九十几半]+|\d+)(?:个|整)?"
    r"(?:礼拜|星期|月|年|夜|晚上|通宵|整天|天|日)|"
    r"(?:[一二两三四五六七八九十几]+|\d+)个?(?:礼拜|星期|月|年))"
)


def not_the_clock(doc: Doc, hit: Hit) -> bool:
    """The time named at ``hit`` is a habit, a likeness or a plan, not the clock moving."""
    clause = doc.clause_at(hit.start)
    for key in ("tm_habitual", "tm_plan"):
        if any(_before_in_sentence(doc, h, hit) for h in doc.hits.get(key, ())):
            return True
    similes = doc.hits.get("tm_simile", ())
    if any(doc.clause_at(h.start).index == clause.index and h.start < hit.end for h in similes):
        return True
    return doc.language == "zh" and _waiting_to(doc, hit)


def _before_in_sentence(doc: Doc, other: Hit, hit: Hit) -> bool:
    """Before the time in its sentence, or anywhere in its clause ("tolls midnight whenever
    someone dies")."""
    here, there = doc.clause_at(hit.start), doc.clause_at(other.start)
    return there.index == here.index or (other.start < hit.end and there.sentence == here.sentence)


def _waiting_to(doc: Doc, hit: Hit) -> bool:
    """ "等天黑了再去": wait for the time, then do something (a plan, "再" after it)."""
    clause = doc.clause_at(hit.start)
    if not doc.text[clause.start : hit.start].lstrip().startswith("等"):
        return False
    ends = [c.end for c in doc.clauses if c.sentence == clause.sentence]
    return "再" in doc.text[hit.end : max(ends)]


def bell_hits(doc: Doc) -> list[Hit]:
    """The hours told by a bell, a clock or a watchman: an hour word in a clause with a
    verb of ringing, in a sentence that names the bell."""
    bells = {doc.clause_at(h.start).sentence for h in doc.of("tm_bell_nouns")}
    rung = {doc.clause_at(h.start).index for h in doc.of("tm_bell_verbs")}
    return [
        h
        for h in [*doc.of("tm_hours"), *_zh_strokes(doc)]
        if doc.clause_at(h.start).sentence in bells and doc.clause_at(h.start).index in rung
    ]


def _zh_strokes(doc: Doc) -> list[Hit]:
    """Chinese strokes of a bell or watches of the night ("十二下", "三更"), wherever the
    segmenter put them."""
    if doc.language != "zh":
        return []
    return [_hit(doc, "tm_hours", *m.span()) for m in _ZH_STROKES.finditer(doc.text)]


def _hit(doc: Doc, key: str, start: int, end: int) -> Hit:
    words = [n for n, t in enumerate(doc.tokens) if t.end > start and t.start < end]
    first = words[0] if words else 0
    return Hit(key, start, end, first, (words[-1] + 1) if words else first + 1)


def spent_hits(doc: Doc) -> list[Hit]:
    """Chinese: a span spent doing something ("端了整整一个礼拜的盘子", "守了整整一夜"):
    a week or more, or a whole day or night ("赶了一天路" before the scene and "看了半天"
    tell no clock)."""
    if doc.language != "zh":
        return []
    return [_hit(doc, "tm_spent", *m.span()) for m in _ZH_SPENT.finditer(doc.text)]
