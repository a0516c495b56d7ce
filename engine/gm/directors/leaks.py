"""A leak detector for secrets in text (seed 001 "no soltar el secreto"; seed 003; issue 12 §5:
"the detector's catch rate on planted leaks in canned NPC lines (target 100 %, false alarms
≤ 2 %)").

Free engine code, no model. A secret is fingerprinted from its text (the whole text is a key
phrase when it is shorter than three content words) and, optionally, key
phrases (the strings a bench plants, or an author's words that give it away). A line leaks it
when it holds one of the key phrases (case, accents, punctuation, plurals and a word or two in
between aside; a long key also inside run-together letters, "Sun-Stone"), or a run of three
content words of the secret's text, or most of the secret's content words at once. The
pipeline uses it as a second lock on the one text the Story Director writes for others, the
synopsis prose: a sentence that leaks a secret its reader may not know is dropped. No player
reads a text it guards: the line out of character is written from the player's view
(``engine.gm.directors.ooc``), since a paraphrase gets past any such lexical lock. The Scene
Director's own context needs no such filter: its types have no room for a secret
(``engine.gm.directors.public``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.gm.mentions import fold

_TOKEN = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]")
_END = re.compile(r"[.!?…。！？]+[\"'”’»)]*\s*|\n+")
STEM = 7  # latin words are compared by their first seven letters ("disguised" ~ "disguise")
RUN = 3  # content words in a row that give a secret away
COVER = 0.6  # share of a secret's content words that gives it away (four words or more)
GAP = 2  # words allowed between the words of a key phrase
LETTERS = 7  # keys at least this long are also found in run-together letters
_STOP_WORDS = """
a an and are as at be been but by for from had has have he her hers him his i in into is it its
me my no not of on or our she so than that the their them then there they this to too was we
were what when where which who whom why will with would you your yours
al como con de del el en era es esta este la las lo los mas me mi no o para pero por que se su
sus te tu un una uno y ya
的 了 是 在 他 她 它 我 你 们 和 与 就 都 也 不 这 那 有 个
"""
STOP = frozenset(_STOP_WORDS.split())
# Common words never count as a secret's own (``engine.gm.directors.knowledge``).
_COMMON_WORDS = """
about above after again against along already also although always among another anyone
anything around away because before behind being below beside between beyond both cannot
could during each early either every first further having helps here herself himself however
itself later least little maybe might never night nothing often other others ourselves quite
rather really second should since something still their there these thing things those
though through today together tonight under until upon usually while whole whose within
without would years morning evening afternoon moves comes going takes keeps knows tells
says makes gives wants needs thinks looks seems becomes brings leaves finds hides holds
people person place house world where every great small large young older money
husband mother father brother sister daughter friend friends letter letters words heard
bread water stone sword north south east west city town village road river bridge door
window table chair light stopped started opened closed turned pressed raised names asked
candle candles friday sunday monday flooded picking secret secrets strange always second
ademas ahora algo alguien antes aunque bajo cada casi cierto contra cosas cuando desde
despues donde durante entonces entre hacia hasta luego mientras mismo mucho muchos nada nadie
noche nuestro nunca otra otras otro otros porque pues quien sido siempre sobre solo tambien
tanto tarde temprano tiene tienen todavia todo todos tras vez veces
"""
COMMON = frozenset(_COMMON_WORDS.split())


def stem(token: str) -> str:
    """A word's comparable form: a plural "s" off, then its first letters."""
    if token.isdigit() or not token.isascii():
        return token
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        token = token[:-1]
    return token[:STEM]


def tokens(text: str) -> list[str]:
    """The stemmed words of ``text`` (case and accents folded, CJK one character each)."""
    return [stem(t) for t in _TOKEN.findall(fold(text))]


def content(words: Iterable[str]) -> list[str]:
    """Without stop words and one- or two-letter words (numbers and CJK kept)."""
    return [w for w in words if w not in STOP and (len(w) >= 3 or w.isdigit() or not w.isascii())]


def _letters(text: str) -> str:
    return "".join(_TOKEN.findall(fold(text)))


@dataclass(frozen=True)
class Fingerprint:
    """What gives one secret away."""

    ref: str
    keys: tuple[tuple[str, ...], ...]  # content words of each key phrase
    runs: frozenset[tuple[str, ...]]  # RUN content words in a row of the text
    words: frozenset[str]  # the text's content words
    letters: tuple[str, ...]  # long keys as run-together letters


def fingerprint(ref: str, text: str, keys: Sequence[str] = ()) -> Fingerprint:
    """The fingerprint of the secret ``ref``; empty text and keys give one that never fires."""
    said = content(tokens(text))
    runs = frozenset(tuple(said[i : i + RUN]) for i in range(len(said) - RUN + 1))
    if 0 < len(said) < RUN:
        keys = [*keys, text]  # too short for a run: the whole text is the key
    key_words = tuple(k for k in (tuple(content(tokens(key))) for key in keys) if k)
    long_keys = tuple(x for x in (_letters(key) for key in keys) if len(x) >= LETTERS)
    return Fingerprint(ref, key_words, runs, frozenset(said), long_keys)


def _has_phrase(line: list[str], phrase: tuple[str, ...]) -> bool:
    """Every word of ``phrase`` within a window of the line, in any order."""
    if len(phrase) == 1:
        return phrase[0] in line
    span = len(phrase) + GAP * (len(phrase) - 1)
    wanted = set(phrase)
    for start, word in enumerate(line):
        if word in wanted and wanted <= set(line[start : start + span]):
            return True
    return False


def leaks(line: str, secret: Fingerprint, excused: frozenset[str] = frozenset()) -> bool:
    """Whether ``line`` gives ``secret`` away (see the module docstring). A key phrase made
    only of ``excused`` words (those of secrets the reader may know) does not count."""
    said = content(tokens(line))
    if not said:
        return False
    keys = [k for k in secret.keys if not set(k) <= excused]
    if any(_has_phrase(said, key) for key in keys):
        return True
    if secret.letters and len(keys) == len(secret.keys):
        letters = _letters(line)
        if any(key in letters for key in secret.letters):
            return True
    if secret.runs:
        line_runs = {tuple(said[i : i + RUN]) for i in range(len(said) - RUN + 1)}
        if line_runs & secret.runs:
            return True
    if len(secret.words) >= 4:
        return len(secret.words & set(said)) / len(secret.words) >= COVER
    return False


class Detector:
    """Scans text for any of a set of secrets."""

    def __init__(self, secrets: Iterable[Fingerprint]) -> None:
        self.secrets = tuple(secrets)

    @classmethod
    def of(
        cls, texts: Mapping[str, str], keys: Mapping[str, Sequence[str]] | None = None
    ) -> Detector:
        """A detector for ``{ref: text}``, with optional key phrases per ref."""
        keys = keys or {}
        return cls(fingerprint(ref, text, keys.get(ref, ())) for ref, text in texts.items())

    def scan(self, text: str, allowed: Iterable[str] = ()) -> list[str]:
        """The refs of the secrets ``text`` gives away, those in ``allowed`` aside (and a
        word they share with an allowed secret is no giveaway)."""
        open_refs = set(allowed)
        excused = frozenset(w for s in self.secrets if s.ref in open_refs for w in s.words)
        return [s.ref for s in self.secrets if s.ref not in open_refs and leaks(text, s, excused)]

    def redact(self, text: str, allowed: Iterable[str] = ()) -> tuple[str, list[str]]:
        """``text`` without the sentences that give away a secret not ``allowed``, and the refs
        they gave away."""
        open_refs = set(allowed)
        kept: list[str] = []
        found: list[str] = []
        for sentence in sentences(text):
            hits = self.scan(sentence, open_refs)
            if hits:
                found.extend(h for h in hits if h not in found)
            else:
                kept.append(sentence)
        return "".join(kept).strip(), found


def sentences(text: str) -> list[str]:
    """``text`` cut after each full stop, question or exclamation mark, or line break; joined
    back they give ``text``."""
    out, start = [], 0
    for end in _END.finditer(text):
        out.append(text[start : end.end()])
        start = end.end()
    return [*out, text[start:]] if start < len(text) else out
