"""Finding names in free text (seed 001 "Comprobación del cierre", "Acciones sugeridas": name
and place lookups against the world, decisions 15 and 17).

The closure check, the suggestion filter and the talk gates all ask the same question: where in
this text is this name? Matching ignores case and accents but keeps positions, so a match can be
replaced in the original text ("Ask Hilda" → "Ask the innkeeper"). Spaced languages match whole
words; Chinese matches anywhere, except that a Latin name is not found inside a longer Latin
word.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache


class _FoldTable(dict[int, str]):
    """``str.translate`` table filled on first sight of each character (folding a narration
    character by character through ``unicodedata`` cost the closure check seconds)."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        low = ch.lower()
        if len(low) != 1:
            folded = ch
        else:
            decomposed = unicodedata.normalize("NFKD", low)
            plain = "".join(c for c in decomposed if not unicodedata.combining(c))
            folded = plain if len(plain) == 1 else low
        self[code] = folded
        return folded


_FOLD = _FoldTable()


@lru_cache(maxsize=2048)
def fold(text: str) -> str:
    """Lowercase and without accents, one character for one (positions are kept)."""
    return text.translate(_FOLD)


@lru_cache(maxsize=4096)
def _pattern(name: str, spaced: bool) -> re.Pattern[str]:
    folded = fold(name).strip()
    body = r"\s+".join(re.escape(part) for part in folded.split())
    if spaced:
        return re.compile(rf"(?<!\w){body}(?!\w)")
    latin = re.compile(r"[a-z0-9]")
    before = r"(?<![a-z0-9])" if latin.match(folded[:1]) else ""
    after = r"(?![a-z0-9])" if latin.match(folded[-1:]) else ""
    return re.compile(rf"{before}{body}{after}")


def spans(text: str, name: str, spaced: bool = True) -> list[tuple[int, int]]:
    """Where ``name`` occurs in ``text`` (start, end), ignoring case and accents."""
    return folded_spans(fold(text), name, spaced)


def folded_spans(folded: str, name: str, spaced: bool = True) -> list[tuple[int, int]]:
    """``spans`` in a text already folded (a long text searched for many names is folded once);
    names whose words are not all in it are skipped before any regular expression runs."""
    if not name.strip() or not could_occur(folded, name):
        return []
    return [m.span() for m in _pattern(name, spaced).finditer(folded)]


def could_occur(folded: str, name: str) -> bool:
    """Every word of ``name`` is somewhere in ``folded``: a cheap necessary condition."""
    return all(part in folded for part in _parts(name))


@lru_cache(maxsize=4096)
def _parts(name: str) -> tuple[str, ...]:
    return tuple(fold(name).split())


def mentions(text: str, name: str, spaced: bool = True) -> bool:
    return bool(spans(text, name, spaced))


def mentioned(
    text: str, candidates: Iterable[tuple[str, Iterable[str]]], spaced: bool = True
) -> list[str]:
    """The ids of the candidates one of whose names occurs in ``text``, in candidate order."""
    return [ident for ident, names in candidates if any(mentions(text, n, spaced) for n in names)]
