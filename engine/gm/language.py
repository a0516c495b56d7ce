"""Words of a text per language: the shared language layer of the guards between the master and
the player (issue 34 §1 and §4: the closure check and the suggestion filter understand language,
not phrase lists).

English and Spanish are split into words and reduced to their Snowball stems (``snowballstemmer``,
the Snowball project's own Python port, which runs on PyStemmer's C code when it is installed):
"perro", "perra" and "perros" are one stem, "asks" and "asking" another. Chinese has no spaces: it
is segmented into words with ``rjieba`` (jieba-rs, the maintained Rust port of jieba, loaded on
first use), and a Chinese word is its own stem. Latin words inside Chinese text are kept whole.

The API, for every guard:

- ``tokens(text, lang, keep=())``: the words, lowercase, accents kept ("iré" stays future),
  apostrophes straightened, punctuation dropped; Chinese segmented, each of ``keep`` (the
  world's names, which jieba's dictionary lacks: 米莎 would split into 米/莎) kept whole.
- ``stems(text, lang, keep=())``: the tokens' stems, folded (lowercase, no accents); Chinese
  unchanged.
- ``content(text, lang, keep=())``: ``stems`` without the language's function words
  (articles, prepositions, pronouns…; in Chinese also by part of speech): what two wordings of
  one thing share.
- ``stem(word, lang)``: one word's folded stem.
- ``segment_zh(text, keep=())``, ``tag_zh(text, keep=())``, ``is_word_zh(text)``: the Chinese
  words, with their part of speech, and whether a string is a word of the dictionary.
- ``grammar(lang)``: the language's closed word classes (``lexicon/grammar.<lang>.json``): function
  words, future auxiliaries, time words… never content words of a world.

A language other than en, es or zh is read as English. Nothing here raises on odd input: an empty
or unusual text gives no words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import snowballstemmer

from engine.gm.mentions import fold
from engine.gm.words import LANGUAGES, LEXICON_DIR

_SNOWBALL = {"en": "english", "es": "spanish"}
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")  # letters and digits, "i'll" and "hilda's" whole
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_ZH_FUNCTION = ("m", "q", "r", "u", "p", "c", "y", "e", "o", "x", "w")  # jieba's tags


@dataclass(frozen=True)
class Grammar:
    """A language's closed word classes, as sets of tokens (and stems where said)."""

    language: str
    sets: Mapping[str, frozenset[str]] = field(repr=False)
    tables: Mapping[str, Any] = field(repr=False)

    def words(self, key: str) -> frozenset[str]:
        return self.sets.get(key, frozenset())

    def table(self, key: str) -> Any:
        """A structured entry (a mapping or a list); None when the language has none."""
        return self.tables.get(key)


def code(language: str | None) -> str:
    """ "es-ES" → "es"; English for a language this layer does not know."""
    short = (language or "en").lower().replace("_", "-").split("-")[0]
    return short if short in LANGUAGES else "en"


@lru_cache(maxsize=len(LANGUAGES))
def grammar(language: str | None) -> Grammar:
    """The closed word classes of ``language`` (English when unknown)."""
    lang = code(language)
    data = json.loads((LEXICON_DIR / f"grammar.{lang}.json").read_text(encoding="utf-8"))
    sets = {k: frozenset(str(w) for w in v) for k, v in data["words"].items()}
    return Grammar(lang, sets, data.get("tables", {}))


def tokens(text: str, language: str | None, keep: Sequence[str] = ()) -> list[str]:
    """The words of ``text``, lowercase with accents kept; Chinese segmented into words, each
    of ``keep`` (the world's names: 米莎, 希尔达) kept whole."""
    lang = code(language)
    plain = text.translate(_APOSTROPHES).lower()
    if lang == "zh" or _HAN.search(plain):
        return [w for w in segment_zh(plain, keep) if _wordlike(w)]
    return [w.strip("'") for w in _WORD.findall(plain)]


def stems(text: str, language: str | None, keep: Sequence[str] = ()) -> list[str]:
    """The folded stems of ``text``'s words (a Chinese word is its own stem)."""
    lang = code(language)
    return [stem(w, lang) for w in tokens(text, lang, keep)]


def content(text: str, language: str | None, keep: Sequence[str] = ()) -> list[str]:
    """``stems`` without the function words: the words that say what the text is about. In
    Chinese the parts of speech tell them too: numerals and measures (一块, 那条), pronouns,
    particles, prepositions and conjunctions are left out."""
    lang = code(language)
    stop = grammar(lang).words("function")
    if lang == "zh":
        tagged = tag_zh(text.translate(_APOSTROPHES).lower(), keep)
        words = [w for w, t in tagged if not t.startswith(_ZH_FUNCTION) and _wordlike(w)]
    else:
        words = tokens(text, lang)
    return [stem(w, lang) for w in words if w not in stop and fold(w) not in stop]


def _wordlike(word: str) -> bool:
    return bool(_WORD.fullmatch(word) or _HAN.search(word))


@lru_cache(maxsize=8192)
def stem(word: str, language: str | None) -> str:
    """One word's Snowball stem, folded; a Chinese word or a number is kept as it is."""
    lang = code(language)
    if _HAN.search(word) or lang not in _SNOWBALL:
        return fold(word)
    return fold(str(_stemmer(lang).stemWord(word.lower())))


@lru_cache(maxsize=len(_SNOWBALL))
def _stemmer(lang: str) -> Any:
    return snowballstemmer.stemmer(_SNOWBALL[lang])


def segment_zh(text: str, keep: Sequence[str] = ()) -> list[str]:
    """Chinese words (jieba-rs' segmentation with its HMM for unknown words), spaces and
    punctuation left out, each of ``keep`` whole. rjieba is imported on first use: its
    dictionary costs ~0.2 s, paid only where Chinese is read."""
    return [w for w, _ in tag_zh(text, keep, tags=False)]


def tag_zh(text: str, keep: Sequence[str] = (), *, tags: bool = True) -> list[tuple[str, str]]:
    """Chinese words with their part-of-speech tag (jieba's: ``v`` verb, ``t`` time, ``r``
    pronoun, ``m`` numeral…; a kept name is ``nr``), spaces left out."""
    import rjieba

    out: list[tuple[str, str]] = []
    for piece, whole in _pieces(text, _longest_first(tuple(keep))):
        if whole:
            out.append((piece, "nr"))
        elif tags:
            out += [(w, t) for w, t in rjieba.tag(piece, True) if w.strip()]
        else:
            out += [(w, "") for w in rjieba.cut(piece, True) if w.strip()]
    return out


def _pieces(text: str, keep: tuple[str, ...]) -> list[tuple[str, bool]]:
    """``text`` cut around each kept name: (piece, whether it is a kept name)."""
    names = [k for k in keep if k in text]
    if not names:
        return [(text, False)]
    pattern = _alternation(tuple(names))
    out, at = [], 0
    for match in pattern.finditer(text):
        out += [(text[at : match.start()], False), (match.group(), True)]
        at = match.end()
    return [(p, whole) for p, whole in [*out, (text[at:], False)] if p]


@lru_cache(maxsize=64)
def _longest_first(keep: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({k.lower() for k in keep if k.strip()}, key=len, reverse=True))


@lru_cache(maxsize=256)
def _alternation(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(n) for n in names))


def is_word_zh(text: str) -> bool:
    """Whether jieba's dictionary holds ``text`` as a word."""
    import rjieba

    return rjieba.has_word(text)
