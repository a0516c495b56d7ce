"""The lexicon data files and the word matching every parser of the game master shares (seed 001
"Una llamada por acción"; decision 9: verbs and templates are data, per language).

``engine/gm/lexicon/<lang>.json`` holds, for en, es and zh: the verbs and synonyms of each engine
move, directions, times of day, the risky verbs with their checks, display names and the
narration templates of every move and failure. Text is compared in a normal form: lowercase,
accents and edge punctuation dropped, so "Tablón" and "tablon" are one word.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "es", "zh")
LEXICON_DIR = Path(__file__).parent / "lexicon"
_EDGES = " \t\r\n.!?¡¿,;:\"'“”‘’«»()[]。！？，；：、…"
FUZZY = 0.8  # SequenceMatcher ratio from which a misspelt name still matches


@dataclass(frozen=True)
class RiskyVerb:
    """A verb whose outcome is uncertain: it ends the turn with a check (issue §4)."""

    key: str
    words: tuple[str, ...]
    kind: str = "check"  # "check" or "attack"
    check: str | None = None
    dc: int = 15
    target: str | None = None  # "npc", "npc-optional" or None
    hidden: bool = False  # rolled at once and never shown to the player
    unlocks: bool = False  # success opens a locked way


@dataclass(frozen=True)
class Lexicon:
    language: str
    spaced: bool
    subjects: tuple[str, ...]
    fillers: frozenset[str]
    connectors: tuple[str, ...]
    commands: Mapping[str, str]
    verbs: Mapping[str, tuple[str, ...]]
    risky: Mapping[str, RiskyVerb]
    back: tuple[str, ...]
    around: tuple[str, ...]  # "look around", "look at the room": the place itself
    directions: Mapping[str, tuple[str, ...]]
    times: Mapping[str, tuple[str, ...]]
    suffixes: tuple[str, ...]
    names: Mapping[str, Mapping[str, str]]
    templates: Mapping[str, str] = field(repr=False)
    roll: tuple[str, ...] = ()  # what typed alone rolls the pending check ("roll", "tiro")
    # "a el pozo" → "al pozo" once a world's noun fills a template (issue 33 §3)
    contractions: tuple[tuple[re.Pattern[str], str], ...] = ()

    def t(self, key: str, **values: Any) -> str:
        """Render a template; a placeholder without a value stays as written."""
        text = self.templates[key].format_map(_Keep(values))
        for pattern, replacement in self.contractions:
            text = pattern.sub(replacement, text)
        return text

    def join(self, items: Iterable[str]) -> str:
        return self.templates["list_sep"].join(items)

    def name(self, table: str, key: str) -> str:
        """A display name (direction, time of day, outcome, check, verb)."""
        return self.names.get(table, {}).get(key, key)


class _Keep(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def normalize(text: str) -> str:
    """Lowercase, without accents, edge punctuation or repeated spaces."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(plain.split()).strip(_EDGES)


@lru_cache(maxsize=8)
def lexicon(language: str) -> Lexicon:
    """The lexicon of a language tag ("es-ES" → es); English for a language without one."""
    code = (language or "en").lower().replace("_", "-").split("-")[0]
    code = code if code in LANGUAGES else "en"
    data = json.loads((LEXICON_DIR / f"{code}.json").read_text(encoding="utf-8"))
    words = _normal_lists
    return Lexicon(
        language=code,
        spaced=bool(data.get("spaced", True)),
        subjects=words(data.get("subjects", [])),
        fillers=frozenset(words(data.get("fillers", []))),
        connectors=tuple(c.lower() for c in data.get("connectors", [])),
        commands={normalize(k): v for k, v in data.get("commands", {}).items()},
        verbs={kind: words(phrases) for kind, phrases in data["verbs"].items()},
        risky={key: _risky(key, spec) for key, spec in data.get("risky", {}).items()},
        back=words(data.get("back", [])),
        around=words(data.get("around", [])),
        directions={k: words(v) for k, v in data["directions"].items()},
        times={k: words(v) for k, v in data["times"].items()},
        suffixes=words(data.get("suffixes", [])),
        names=data.get("names", {}),
        templates=data["templates"],
        roll=words(data.get("roll", [])),
        contractions=tuple((re.compile(k), v) for k, v in data.get("contractions", {}).items()),
    )


def _normal_lists(values: Iterable[str]) -> tuple[str, ...]:
    # Longest first, so that "pick up" wins over "pick" and "看告示" over "看".
    return tuple(sorted({normalize(v) for v in values if normalize(v)}, key=len, reverse=True))


def _risky(key: str, spec: Mapping[str, Any]) -> RiskyVerb:
    return RiskyVerb(
        key=key,
        words=_normal_lists(spec.get("words", [])),
        kind=str(spec.get("kind", "check")),
        check=spec.get("check"),
        dc=int(spec.get("dc", 15)),
        target=spec.get("target"),
        hidden=bool(spec.get("hidden", False)),
        unlocks=bool(spec.get("unlocks", False)),
    )


# --- matching ---------------------------------------------------------------------------------


def starts_with(lex: Lexicon, text: str, phrase: str) -> str | None:
    """The rest of ``text`` after ``phrase`` as its first word(s), or None."""
    if text == phrase:
        return ""
    if lex.spaced:
        return text[len(phrase) + 1 :] if text.startswith(phrase + " ") else None
    return text[len(phrase) :] if text.startswith(phrase) else None


def without_subject(lex: Lexicon, text: str) -> list[str]:
    """``text`` as typed, then without each leading subject ("I", "yo", "我要") it starts with."""
    out = [text]
    for subject in lex.subjects:
        rest = starts_with(lex, text, subject)
        if rest:
            out.append(rest)
    return out


Table = Mapping[str, Sequence[str]]
Candidates = Iterable[tuple[str, Sequence[str]]]


def match_phrase(lex: Lexicon, text: str, table: Table) -> tuple[str, str, int]:
    """The key whose phrase starts ``text`` (longest phrase wins), the rest, and the phrase's
    length; ("", text, 0) when none does."""
    best = ("", text, 0)
    for key, phrases in table.items():
        for phrase in phrases:
            if len(phrase) <= best[2]:
                break
            rest = starts_with(lex, text, phrase)
            if rest is not None:
                best = (key, rest, len(phrase))
                break
    return best


def strip_fillers(lex: Lexicon, text: str) -> str:
    """Drop leading articles and prepositions (and, without spaces, trailing particles), never
    the last word."""
    if lex.spaced:
        tokens = text.split()
        while len(tokens) > 1 and tokens[0] in lex.fillers:
            tokens.pop(0)
        return " ".join(tokens)
    changed = True
    while changed:
        changed = False
        for word in sorted(lex.fillers, key=len, reverse=True):
            if text.startswith(word) and len(text) > len(word):
                text, changed = text[len(word) :], True
        for word in (*lex.suffixes, *sorted(lex.fillers, key=len, reverse=True)):
            if text.endswith(word) and len(text) > len(word):
                text, changed = text[: -len(word)], True
    return text


def lookup(lex: Lexicon, text: str, table: Mapping[str, Sequence[str]]) -> str | None:
    """The key of ``table`` one of whose words is exactly ``text``."""
    for key, words in table.items():
        if text in words:
            return key
    return None


def match_names(lex: Lexicon, query: str, candidates: Candidates) -> list[str]:
    """The ids whose names best match ``query`` (several: ambiguous; none: no match).

    Exact names first, then names holding every word of the query (or held by it), then names
    within spelling distance.
    """
    query = normalize(query)
    scores: dict[str, int] = {}
    for ident, names in candidates:
        score = max((_score(lex, query, normalize(n)) for n in names), default=0)
        if score:
            scores[ident] = max(score, scores.get(ident, 0))
    if not scores:
        return []
    best = max(scores.values())
    return [ident for ident, score in scores.items() if score == best]


def _score(lex: Lexicon, query: str, name: str) -> int:
    if not query or not name:
        return 0
    core = strip_fillers(lex, name)
    if query in (name, core):
        return 4
    if lex.spaced:
        asked = set(query.split()) - lex.fillers
        known = set(name.split()) - lex.fillers
        if asked and asked <= known:
            return 3
        if known and known <= asked:
            return 2
        pieces = [name, *known]
    else:
        if query in name or core in query:
            return 3
        pieces = [name]
    if any(SequenceMatcher(None, query, piece).ratio() >= FUZZY for piece in pieces):
        return 1
    return 0


def split_actions(lex: Lexicon, text: str) -> list[str]:
    """Split a message holding several actions ("take the rope, then go north") at its
    connectors; one action gives a one-item list."""
    if not lex.connectors:
        return [text]
    pattern = "|".join(re.escape(c) for c in sorted(lex.connectors, key=len, reverse=True))
    parts = re.split(pattern, text, flags=re.IGNORECASE)
    return [p.strip() for p in parts if p.strip()] or [text]
