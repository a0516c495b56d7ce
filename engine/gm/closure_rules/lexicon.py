"""The closure check's word classes, as data per language (issue 34 §1: "verb-class lexicons
keyed by stems … combined with entity mentions, not whole phrases").

``engine/gm/lexicon/closure.<lang>.json`` groups words by what they claim: verbs by effect
(``acquire``, ``give``, ``pay``, ``enter``, ``die``…), function words (negations, modals,
pronouns, the words between a subject and its verb), nouns by kind (places, money, pledges,
clues) and the trade words by which a stranger names someone. A verb is written once: Spanish
infinitives are conjugated here ("coger" gives "coges", "cogió", "cogiste"…, an irregular form
follows a bar: "coger|cojo"), English forms are folded by the stemmer ("take|took|taken"), and
every form is kept as its stem, so any tense of any listed verb matches. A phrase matches a run
of words by their stems; ``*`` in a phrase stands for up to three words ("hand * over").
Chinese phrases match characters, a one-character verb only as a whole word of the segmenter.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from engine.gm.closure_rules.conjugation import alternatives, verb_forms
from engine.gm.closure_rules.tokens import Token, phrase_folds, phrase_stems, spaced
from engine.gm.mentions import fold
from engine.gm.words import LANGUAGES, LEXICON_DIR

GAP = "*"
_EXACT_TEXT = (
    "conjunctions coordinators joiners subjects object_preps articles determiners you "
    "pron_he pron_she pron_it pron_they pron_obj nobody no_object negations not_negations amounts "
    "female_words male_words place_suffix_stop second_person place_idioms subordinators"
)
EXACT = frozenset(
    _EXACT_TEXT.split()
)  # closed classes: compared as written (a stem makes "sin" of "sino"), less a plural
GAP_WORDS = 4
_LIGHT = set("来去再也又就都先便才还只")
_ASPECT = set("了过着起来去下上到走开出回住完掉")


@dataclass(frozen=True, slots=True)
class Hit:
    """Where a word of a class occurs: its key, character span and token span."""

    key: str
    start: int
    end: int
    first: int
    last: int  # exclusive


@dataclass(frozen=True)
class Words:
    """One language's classes, indexed for a single pass over a narration's tokens."""

    language: str
    lists: Mapping[str, tuple[str, ...]] = field(repr=False)
    trades: Mapping[str, tuple[str, ...]] = field(repr=False)
    index: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]] = field(repr=False)
    nouns: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]] = field(repr=False)
    verb_keys: frozenset[str] = frozenset()
    exact: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]] = field(
        repr=False, default_factory=dict
    )

    @property
    def spaced(self) -> bool:
        return spaced(self.language)

    def list(self, key: str) -> tuple[str, ...]:
        return self.lists.get(key, ())

    def stems(self, key: str) -> frozenset[str]:
        """A class's one-word entries as they are compared: closed classes (pronouns,
        articles, joiners) by their light form, verbs by their stem."""
        return _stem_set(self.language, key)

    def has(self, token: Token, key: str) -> bool:
        """The word is one of the class's one-word entries."""
        form = token.fold if key in EXACT else token.light if key.endswith("_nouns") else token.stem
        return form in _stem_set(self.language, key)

    def scan(self, text: str, tokens: builtins.list[Token]) -> dict[str, builtins.list[Hit]]:
        """Every class's hits in ``text``, in order of position."""
        hits = _scan_chars(self, text, tokens) if not self.spaced else _scan_tokens(self, tokens)
        out: dict[str, builtins.list[Hit]] = {}
        for hit in sorted(hits, key=lambda h: (h.start, -h.end)):
            out.setdefault(hit.key, []).append(hit)
        return out


@lru_cache(maxsize=len(LANGUAGES))
def words(language: str) -> Words:
    """The closure lexicon of ``language`` (English when it has none)."""
    code = language if language in LANGUAGES else "en"
    data = json.loads((LEXICON_DIR / f"closure.{code}.json").read_text(encoding="utf-8"))
    irregular = {k: tuple(v.split()) for k, v in data.get("irregular", {}).items()}
    lists: dict[str, tuple[str, ...]] = {}
    for key, entries in data.get("verbs", {}).items():
        lists[key] = tuple(verb_forms(entries, code, irregular))
    for key, entries in data.get("words", {}).items():
        lists[key] = tuple(alternatives(entries))
    trades = {fold(k): tuple(v) for k, v in data.get("trades", {}).items()}
    nouns = frozenset(k for k in lists if k.endswith("_nouns"))
    book = matcher(code, lists, trades, nouns, EXACT & set(lists))
    return replace(book, verb_keys=frozenset(data.get("verbs", {})))


def matcher(
    language: str,
    lists: Mapping[str, tuple[str, ...]],
    trades: Mapping[str, tuple[str, ...]] | None = None,
    nouns: frozenset[str] | None = None,
    exact: frozenset[str] = frozenset(),
) -> Words:
    """Word lists as one matcher: the ``nouns`` keys (all when None) compare light forms,
    the ``exact`` keys and "=" entries folded forms, the rest stems."""
    nouns = frozenset(lists) if nouns is None else nouns
    stems = {
        k: tuple(e for e in v if not e.startswith("="))
        for k, v in lists.items()
        if k not in nouns and k not in exact
    }
    names = {k: v for k, v in lists.items() if k in nouns}
    written = {k: v for k, v in lists.items() if k in exact}
    for key, entries in lists.items():  # "=murió": as written (its stem is "muro"'s)
        pinned = tuple(e[1:] for e in entries if e.startswith("="))
        if pinned and key not in nouns and key not in exact:
            written[key] = (*written.get(key, ()), *pinned)
    return Words(
        language,
        lists,
        trades or {},
        _index(language, stems, mode="stem"),
        _index(language, names, mode="light"),
        exact=_index(language, written, mode="fold"),
    )


def _index(
    language: str, lists: Mapping[str, tuple[str, ...]], *, mode: str
) -> dict[str, tuple[tuple[tuple[str, ...], str], ...]]:
    """First stem (Chinese: first character) → the phrases starting with it, longest first."""
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for key, entries in lists.items():
        for entry in entries:
            parts = _parts(entry, language, mode)
            if parts and parts[0] != GAP:
                index.setdefault(parts[0][:1] if not spaced(language) else parts[0], []).append(
                    (parts, key)
                )
    return {
        k: tuple(sorted(set(v), key=lambda p: -sum(len(x) for x in p[0]))) for k, v in index.items()
    }


def _parts(entry: str, language: str, mode: str = "stem") -> tuple[str, ...]:
    if not spaced(language):
        return tuple(fold(p) for p in entry.split())  # a phrase of characters; "*" gaps
    out: list[str] = []
    for word in entry.split():
        if word == GAP:
            out.append(GAP)
        elif mode == "fold":
            out += list(phrase_folds(word, language))
        else:
            out += list(phrase_stems(word, language, mode == "light"))
    return tuple(out)


@lru_cache(maxsize=len(LANGUAGES))
def _closed(language: str) -> frozenset[str]:
    """The closed-class words of a language (prepositions, articles, conjunctions…)."""
    keys = ("object_preps", "articles", "determiners", "conjunctions", "subordinators")
    data = json.loads((LEXICON_DIR / f"closure.{language}.json").read_text(encoding="utf-8"))
    found = [w for k in (*keys, "negations", "nobody") for w in data["words"].get(k, [])]
    return frozenset(fold(w) for w in found if " " not in w)


@lru_cache(maxsize=256)
def _stem_set(language: str, key: str) -> frozenset[str]:
    book = words(language)
    mode = "fold" if key in EXACT else "light" if key.endswith("_nouns") else "stem"
    return frozenset(p[0] for e in book.list(key) if len(p := _parts(e, language, mode)) == 1)


# --- matching -------------------------------------------------------------------------------


def _scan_tokens(book: Words, tokens: list[Token]) -> list[Hit]:
    hits: list[Hit] = []
    stems = [t.stem for t in tokens]
    lights = [t.light for t in tokens]
    folds = [t.fold for t in tokens]
    closed = _closed(book.language)
    passes = (
        (book.index, stems, "stem"),
        (book.nouns, lights, "light"),
        (book.exact, folds, "fold"),
    )
    for i, token in enumerate(tokens):
        for index, seq, attr in passes:
            word = getattr(token, attr)
            for parts, key in index.get(word, ()):
                if len(parts) == 1 and key in book.verb_keys and token.fold in closed:
                    continue  # "como", "entre": a preposition, though a verb shares its stem
                last = _match(seq, i, parts)
                if last is not None:
                    hits.append(Hit(key, token.start, tokens[last - 1].end, i, last))
    return hits


def _match(stems: list[str], i: int, parts: tuple[str, ...]) -> int | None:
    """The token index just past ``parts`` matched from ``i``; None when they do not match."""
    if not parts:
        return i
    head, rest = parts[0], parts[1:]
    if head == GAP:
        for skip in range(GAP_WORDS + 1):
            end = _match(stems, i + skip, rest)
            if end is not None:
                return end
        return None
    if i < len(stems) and stems[i] == head:
        return _match(stems, i + 1, rest)
    return None


def _scan_chars(book: Words, text: str, tokens: list[Token]) -> list[Hit]:
    folded = fold(text)
    starts = {t.start: n for n, t in enumerate(tokens)}
    hits: list[Hit] = []
    for at, char in enumerate(folded):
        found = (*book.index.get(char, ()), *book.nouns.get(char, ()), *book.exact.get(char, ()))
        for parts, key in found:
            end = _match_chars(folded, at, parts)
            if end is None or not _aligned(parts, at, end, tokens, starts, key, book):
                continue
            hits.append(Hit(key, at, end, *_token_span(tokens, at, end)))
    return hits


def _match_chars(folded: str, at: int, parts: tuple[str, ...]) -> int | None:
    if not parts:
        return at
    head, rest = parts[0], parts[1:]
    if head == GAP:
        for skip in range(0, 9):
            end = _match_chars(folded, at + skip, rest)
            if end is not None:
                return end
        return None
    return _match_chars(folded, at + len(head), rest) if folded.startswith(head, at) else None


def _aligned(
    parts: tuple[str, ...],
    start: int,
    end: int,
    tokens: list[Token],
    starts: dict[int, int],
    key: str,
    book: Words,
) -> bool:
    """A one-character Chinese word must be a word of the segmenter, or one followed by an
    aspect or a complement ("死了", "拿起"): "死" is not in "死寂". A negation may open a
    longer word ("没谈成", "不够"), unless that word is no negation ("不过", "不错")."""
    if len("".join(p for p in parts if p != GAP)) > 1:
        return True
    n = starts.get(start)
    if n is None and tokens and start - 1 in starts:  # "来付", "再拿": a light word before it
        n = starts[start - 1]
        if tokens[n].text[:1] not in _LIGHT or tokens[n].end < end:
            return False
        return all(c in _ASPECT for c in tokens[n].text[end - tokens[n].start :])
    if n is None:
        return False
    if key == "negations":
        return tokens[n].text not in book.list("not_negations")
    rest = tokens[n].text[end - start :]
    return all(c in _ASPECT for c in rest)


def _token_span(tokens: list[Token], start: int, end: int) -> tuple[int, int]:
    first = next((n for n, t in enumerate(tokens) if t.end > start), len(tokens))
    last = next((n for n, t in enumerate(tokens) if t.start >= end), len(tokens))
    return first, max(last, first + 1)
