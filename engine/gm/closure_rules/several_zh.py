"""A Chinese clause's deeds (issue 34 §2: "你塞给伙计几文钱，牵出一匹马…" resolves more than one).

Chinese strings verbs without commas ("你端着酒碗跳上桌子", "又跳下来拉着老王跳舞"), so a clause
may hold several deeds: each verb of a deed class in it, in order, except a verb of manner
(followed by 着: "端着", "拉着"), a verb used as a preposition before the clause's own verb
("朝古井走去", "冲小梅笑了笑"), and what is looked at, gestured, wanted or negated. Verbs of
no class of the lexicon count from ``chain_deed_verbs`` ("牵出", "砸", "跳舞"). A clause whose
first word is a thing followed by 也, 都, 已经 ("灯也点上了") has that thing as its subject.
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import Ref
from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.text import Clause, Doc

_MANNER = "着"


def zh_deeds(
    reading: Reading, clause: Clause, me: set[Ref], family_of: dict[int, str]
) -> list[str]:
    """The families of the clause's deeds in order; ``family_of`` maps an event group's start
    to its family ("" for none), as the caller judges one verb."""
    doc = reading.doc
    found: dict[int, str] = {}
    spans = [(t.start, t.end) for t in doc.tokens]
    for start, family in sorted(family_of.items()):
        if _manner(doc, start) or _coverb(reading, clause, start):
            continue
        word = next(((a, b) for a, b in spans if a <= start < b), (start, start + 1))
        if any(word[0] <= s < word[1] for s in found):
            continue  # "打开" and its "开": one verb
        found[start] = family
    taken = [(e.start, e.end) for e in reading.events if e.clause.index == clause.index]
    starts = {t.start for t in doc.tokens[clause.first : clause.last]}
    for hit in doc.of("chain_deed_verbs"):
        inside = clause.start <= hit.start < clause.end and hit.start in starts
        if inside and not any(a <= hit.start < b for a, b in taken) and not _manner(doc, hit.start):
            found[hit.start] = "deed"
    return [found[s] for s in sorted(found)]


def events_by_start(reading: Reading, clause: Clause) -> dict[int, list[Event]]:
    out: dict[int, list[Event]] = {}
    for event in reading.events:
        if event.clause.index == clause.index:
            out.setdefault(event.start, []).append(event)
    return out


def _manner(doc: Doc, start: int) -> bool:
    """A verb followed by 着 tells how the next is done ("端着酒碗跳上桌子")."""
    token = next((t for t in doc.tokens if t.start == start), None)
    end = token.end if token is not None else start + 1
    return doc.text[end : end + 1] == _MANNER or doc.text[start:end].endswith(_MANNER)


def _coverb(reading: Reading, clause: Clause, start: int) -> bool:
    """朝, 往, 冲 before another word of the clause: a preposition, not a deed."""
    doc = reading.doc
    token = next((t for t in doc.tokens if t.start == start), None)
    if token is None or token.text not in doc.words.stems("object_preps"):
        return False
    return clause.last - 1 > doc.tokens.index(token)


def zh_topic(doc: Doc, clause: Clause, n: int) -> bool:
    """A thing followed by 也, 都, 已经 opens the clause as its subject ("灯也点上了")."""
    after = doc.tokens[n + 1 : n + 2]
    return bool(after) and after[0].text in doc.words.list("chain_topic_marks")
