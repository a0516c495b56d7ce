"""The lorebook's keyword matcher (seed 004 "关键词匹配"): every keyword of one case group in a
single trie regex.

All keywords of one case group go into a trie, emitted as a single regular expression wrapped in
a lookahead, ``(?=(trie))``, and run with ``finditer``. The lookahead tries every start position
(so overlapping keywords are all found) and the greedy trie reports the longest keyword starting
there; the shorter keywords that are prefixes of it are added from a table built at compile time.
The regex engine's cost grows with the text, not with the number of keywords. Apart from
``engine.lorebook`` because it knows nothing of entries, only of text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.tokens import NO_SPACE_SCRIPTS

_WORD_CHAR = re.compile(rf"[^\W{NO_SPACE_SCRIPTS}]")
_MAX_TRIE_KEYWORD = 64  # longer keywords are searched one by one (keeps the regex shallow)


@dataclass(frozen=True, slots=True)
class Keyword:
    text: str  # whitespace-normalised; lower-cased unless case-sensitive
    check_left: bool
    check_right: bool


class KeywordMatcher:
    """Every keyword of one case group; ``find`` maps keyword id → has a whole-word match."""

    def __init__(self, ids: dict[str, int], keywords: list[Keyword], case_sensitive: bool):
        self.case_sensitive = case_sensitive
        self.keywords = keywords
        self.ids = ids
        short = {text: kid for text, kid in ids.items() if len(text) <= _MAX_TRIE_KEYWORD}
        self.long = [(text, kid) for text, kid in ids.items() if len(text) > _MAX_TRIE_KEYWORD]
        self.prefixes: dict[int, tuple[int, ...]] = {}
        self.regex: re.Pattern[str] | None = None
        if short:
            trie = _build_trie(short)
            self.prefixes = _prefix_table(trie, short)
            self.regex = _compile_uncached("(?=(" + _trie_pattern(trie) + "))")

    def normalise(self, text: str) -> str:
        text = " ".join(text.split())
        return text if self.case_sensitive else text.lower()

    def find(self, text: str, hits: dict[int, bool]) -> None:
        norm = self.normalise(text)
        keywords, ids, prefixes = self.keywords, self.ids, self.prefixes
        if self.regex is not None:
            for match in self.regex.finditer(norm):
                start = match.start()
                for kid in prefixes[ids[match.group(1)]]:
                    if not hits.get(kid):
                        kw = keywords[kid]
                        hits[kid] = _bounded(norm, start, start + len(kw.text), kw)
        for text_, kid in self.long:
            start = norm.find(text_)
            while start != -1 and not hits.get(kid):
                hits[kid] = _bounded(norm, start, start + len(text_), keywords[kid])
                start = norm.find(text_, start + 1)


def is_word_char(char: str) -> bool:
    return _WORD_CHAR.match(char) is not None


def _bounded(text: str, start: int, end: int, kw: Keyword) -> bool:
    if kw.check_left and start > 0 and _WORD_CHAR.match(text, start - 1):
        return False
    return not (kw.check_right and end < len(text) and _WORD_CHAR.match(text, end))


# --- the trie regex -----------------------------------------------------------------------

_Trie = dict[str, Any]
_END = ""  # key of the terminal marker; never a character


def _build_trie(words: Iterable[str]) -> _Trie:
    root: _Trie = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[_END] = word
    return root


def _trie_pattern(node: _Trie) -> str:
    """A regex matching exactly the trie's words, preferring the longest at each position."""
    branches = [
        re.escape(char) + _trie_pattern(child) for char, child in sorted(node.items()) if char
    ]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if _END in node:
        return (body if len(branches) > 1 else "(?:" + body + ")") + "?"
    return body


def _prefix_table(trie: _Trie, ids: dict[str, int]) -> dict[int, tuple[int, ...]]:
    """For each word, itself and every shorter word that is a prefix of it."""
    table: dict[int, tuple[int, ...]] = {}
    for word, kid in ids.items():
        node = trie
        found: list[int] = []
        for char in word:
            node = node[char]
            if _END in node:
                found.append(ids[node[_END]])
        table[kid] = tuple(reversed(found))
    return table


def _compile_uncached(pattern: str) -> re.Pattern[str]:
    """Compile without entering ``re``'s module cache, which would keep every world's (large)
    pattern alive long after its lorebook left our own cache."""
    compiler = getattr(re, "_compiler", None)
    compile_fn = getattr(compiler, "compile", None)
    if callable(compile_fn):
        compiled = compile_fn(pattern, 0)
        if isinstance(compiled, re.Pattern):
            return compiled
    return re.compile(pattern)
