"""Another player's character given a line of speech by its tag (seed 001 "hace … hablar … a
otro jugador"): "—No le hagas caso —interrumpe Bruno—", "'Leave it,' snaps Ada", "“别碰它。”
林岚一把拉住你的袖子".

A dialogue tag needs no verb of saying the lexicon knows: right after the closing quote or
dash, a word or two and her name ("interrumpe Bruno", "snaps Ada"), or her name and a word
("Ada snaps."), make the line hers. In Chinese the one named right after the closing quote,
opening what follows, is the speaker. The first person named after the line decides: "'Ada,'
says Hilda" is Hilda's line; "you tell Ada" is yours.
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import Mention, Ref
from engine.gm.closure_rules.facts import Reading

_TAG_WORDS = 2  # "interrumpe Bruno", "says Ada quietly"


def speaks(reading: Reading, others: set[Ref]) -> bool:
    doc = reading.doc
    for _, end in doc.quotes:
        after = [m for m in reading.mentions if m.start >= end and m.ref.person]
        if not after or after[0].ref not in others or doc.in_quotes(after[0].start):
            continue
        if _tag(reading, end, after[0]):
            return True
    return False


def _tag(reading: Reading, end: int, mention: Mention) -> bool:
    doc = reading.doc
    gap = doc.text[end : mention.start]
    if not doc.spaced:
        return len(gap.strip("”」』\"' ")) == 0 and mention.end < len(doc.text.rstrip("。！？"))
    words = [w for w in gap.replace("—", " ").replace(",", " ").split() if w]
    if any(w[:1].isupper() for w in words) or any(c in gap for c in ".!?"):
        return False  # a new sentence, not a tag
    rest = doc.text[mention.end :].replace("—", " ").split()
    if words:
        return len(words) <= _TAG_WORDS and _ends(doc.text[mention.end :])
    return bool(rest) and rest[0].rstrip(".,—").islower() and _ends(" ".join(rest[1:]), 0)


def _ends(text: str, words: int = 1) -> bool:
    """The tag ends within a word or so: a dash, a stop, a comma."""
    head = text.lstrip()
    cut = min((head.find(c) for c in "—.,;" if c in head), default=len(head))
    return len(head[:cut].split()) <= words


def tag_speaker(reading: Reading, start: int, end: int) -> Ref | None:
    """Who a verb right after a line speaks for, when her name follows it ("—Bruno, ven
    aquí —llama Marta": Marta calls, whoever the line names)."""
    doc = reading.doc
    if not any(0 <= start - b <= 3 and not doc.text[b:start].strip(" —-,") for _, b in doc.quotes):
        return None
    after = [m for m in reading.mentions if m.start >= end and m.ref.person]
    if after and after[0].start - end <= 2:
        return after[0].ref
    return None
