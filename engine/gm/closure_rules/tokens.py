"""Words with their positions, per language, for the closure check (issue 34 §1: "tokenise and
normalise per language with maintained libraries").

The rules judge what a narration refers to, so each word keeps where it stands (a subject is
the mention just before a verb, a negation the word a few before it). Spanish and English words
are stemmed with the Snowball stemmers of ``engine.gm.language`` (a verb's tenses share a stem:
"coges", "cogió", "coger"), Chinese is segmented by its word segmenter ("死寂" is one word, so
it holds no "死"). Stems are folded (lowercase, no accents) after stemming: Snowball's Spanish
rules read the accents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from engine.gm import language as shared
from engine.gm.mentions import fold

_WORD = re.compile(r"[^\W_]+(?:['’](?![sS]\b)[^\W_]+)*", re.UNICODE)  # "Hilda's": Hilda
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class Token:
    """One word: its text, folded form, stem and character span in the narration."""

    text: str
    fold: str
    stem: str
    start: int
    end: int
    light: str = ""  # folded, without a plural ending: how nouns and names are compared


_EN_OES = {"goes": "go", "does": "do", "undoes": "undo", "forgoes": "forgo", "outdoes": "outdo"}


def spaced(language: str) -> bool:
    return language != "zh"


@lru_cache(maxsize=65536)
def stem(word: str, language: str) -> str:
    """The folded stem of one word ("Cogiste" → "cog"); Chinese words are their own stem."""
    low = word.lower()
    if language == "zh" or _HAN.search(low):
        return fold(low)
    if language == "en" and low in _EN_OES:
        return _EN_OES[low]  # Snowball leaves "goes" as "goe", apart from "go"
    return shared.stem(low, language)


def tokenize(text: str, language: str, keep: tuple[str, ...] = ()) -> list[Token]:
    """The words of ``text`` in order, each with its span (punctuation is left out); in
    Chinese each of ``keep`` (the world's names) stays one word."""
    if language == "zh" or _HAN.search(text):
        return _segmented(text, language, keep)
    return [_token(m.group(), m.start(), language) for m in _WORD.finditer(text)]


def _token(word: str, start: int, language: str) -> Token:
    folded = fold(word)
    return Token(
        word, folded, stem(word, language), start, start + len(word), light(folded, language)
    )


@lru_cache(maxsize=65536)
def light(folded: str, language: str = "en") -> str:
    """A folded word without its plural ending ("monedas" → "moneda", "boxes" → "box",
    "mujeres" → "mujer"): nouns are compared so, since a stemmer makes "préstamo" of
    "prestamista"."""
    sibilant = folded[-3:-2] in ("x", "z") or folded.endswith(("ches", "shes", "sses"))
    plural_es = len(folded) > 4 and folded.endswith("es") and folded[-3] not in "aeiou"
    if plural_es and (language == "es" or sibilant):
        return folded[:-2]
    if len(folded) > 3 and folded.endswith("s") and not folded.endswith("ss"):
        return folded[:-1]
    return folded


def _segmented(text: str, language: str, keep: tuple[str, ...] = ()) -> list[Token]:
    """Chinese by the segmenter; a Latin run inside it (a name, "Ada") is one word, stemmed in
    English so that the world's Latin names still match."""
    out: list[Token] = []
    at = 0
    for piece in shared.segment_zh(text, keep):
        start = text.find(piece, at)
        if start < 0:
            continue
        at = start + len(piece)
        if not piece.strip() or not _WORD.fullmatch(piece.strip()):
            if _WORD.search(piece):
                out += [_token(m.group(), start + m.start(), "en") for m in _WORD.finditer(piece)]
            continue
        if _HAN.search(piece):
            out += [
                Token(w, fold(w), fold(w), s, s + len(w), fold(w)) for w, s in _split(piece, start)
            ]
        else:
            out.append(_token(piece, start, "en" if language == "zh" else language))
    return out


@lru_cache(maxsize=8192)
def phrase_stems(phrase: str, language: str, nouns: bool = False) -> tuple[str, ...]:
    """A lexicon phrase as the stems it is matched by ("te haces con" → te, hac, con), or with
    ``nouns`` its light forms ("las monedas" → la, moneda)."""
    return tuple(t.light if nouns else t.stem for t in tokenize(phrase, language))


@lru_cache(maxsize=8192)
def phrase_folds(phrase: str, language: str) -> tuple[str, ...]:
    """A phrase of closed-class words as written, folded ("estás" is not "esta")."""
    return tuple(t.fold for t in tokenize(phrase, language))


_PRONOUNS = "你您我他她它"


def _split(piece: str, start: int) -> list[tuple[str, int]]:
    """A pronoun the segmenter glued to its verb ("你付了": 你付/了, a word no dictionary
    holds) is two words: the subject and the verb."""
    glued = len(piece) > 1 and piece[0] in _PRONOUNS and piece[1] != "的"
    if glued and not shared.is_word_zh(piece):
        return [(piece[0], start), (piece[1:], start + 1)]
    return [(piece, start)]
