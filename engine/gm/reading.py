"""How the closure check reads a narration (seed 001 "Comprobación del cierre"; decision 15):
sentence by sentence, with or without quoted speech, each phrase found ignoring case and accents
and skipped when a negation ("not", "no", "不") comes just before it.

The words are the language's phrasebook (``engine/gm/lexicon/master.<lang>.json``); the rules
that use them are ``engine.gm.closure``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.gm.mentions import fold, mentions, spans
from engine.gm.phrasebook import Phrasebook, phrasebook

_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|«[^»]*»|「[^」]*」|『[^』]*』|‘[^’]*’|(?<!\w)'.*?'(?!\w)")
_SENTENCE = re.compile(r"[^.!?。！？…\n;；]+[.!?。！？…;；]*")
NEGATION_WORDS, NEGATION_CHARS = 4, 6  # how far before a match a negation turns it around


@dataclass(frozen=True)
class Narration:
    """A narration read in one language: its sentences, with and without quoted speech."""

    text: str
    words: Phrasebook
    spaced: bool

    @classmethod
    def read(cls, text: str, language: str) -> Narration:
        words = phrasebook(language)
        return cls(text, words, words.language != "zh")

    def sentences(self, *, quotes: bool = True) -> list[str]:
        text = self.text if quotes else _QUOTED.sub(" ", self.text)
        return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]

    def said(self, sentence: str, phrase: str) -> bool:
        """``phrase`` occurs in ``sentence`` at least once without a negation before it."""
        return any(
            not self.negated(sentence, start) for start, _ in spans(sentence, phrase, self.spaced)
        )

    def any_said(self, sentence: str, phrases: Iterable[str]) -> bool:
        return any(self.said(sentence, p) for p in phrases)

    def negated(self, sentence: str, start: int) -> bool:
        before = fold(sentence[:start])
        if self.spaced:
            window = " ".join(re.findall(r"[\w'’]+", before)[-NEGATION_WORDS:])
        else:
            window = before[-NEGATION_CHARS:]
        return any(mentions(window, n, self.spaced) or _clitic(window, n) for n in self.neg)

    @property
    def neg(self) -> tuple[str, ...]:
        return self.words.list("negations")


def _clitic(window: str, negation: str) -> bool:
    return negation in ("n't", "n’t") and ("n't" in window or "n’t" in window)


def mask(sentence: str, phrases: Iterable[str], spaced: bool) -> str:
    """``sentence`` with each phrase blanked out (so "no lo consigues" hides "lo consigues")."""
    for phrase in phrases:
        for start, end in spans(sentence, phrase, spaced):
            sentence = sentence[:start] + " " * (end - start) + sentence[end:]
    return sentence


def after_subject(rest: str, joiners: tuple[str, ...], spaced: bool) -> str:
    """What follows a name, past a comma and adverbs ("Ada, smiling," "Ada also", "Ada 也")."""
    text = fold(rest).lstrip(" ,—-，、")
    changed = True
    while changed:
        changed = False
        for joiner in joiners:
            if starts_with(text, joiner, spaced):
                text, changed = text[len(joiner) :].lstrip(" ,"), True
    return text


def starts_with(text: str, word: str, spaced: bool) -> bool:
    if not spaced:
        return text.startswith(word)
    return bool(re.match(rf"{re.escape(fold(word))}(?!\w)", text))


def ends_with_tag(text: str, word: str) -> bool:
    """``text`` ends with a speech tag after a quote or a dash: ', says' / '— dice'."""
    tag = rf"[\"”’'»,—–-]\s*{re.escape(fold(word))}[\s,]*$"
    return bool(re.search(tag, fold(text)))
