"""Older memories that might matter now (seed 003 "Para recuerdos más antiguos, la búsqueda
semántica recupera los que podrían importar"; decision 25: top 5, behind an interface with a
keyword fallback).

``MemorySearch`` ranks texts it is handed and nothing else: the Scene Director's projection
gives it one NPC's own older memories, so a search can never bring in a memory of another NPC
or any other text. The semantic implementation (a small CPU embedding model) lives with the NPC
memory (issue 12 §2) and plugs in here; ``KeywordSearch`` is the plain-text fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from engine.gm.directors.leaks import content, tokens

TOP = 5


@runtime_checkable
class MemorySearch(Protocol):
    """Ranks candidate texts by how near in meaning they are to a query."""

    def rank(self, query: str, texts: Sequence[str], k: int) -> list[int]:
        """The indices of at most ``k`` of ``texts``, best first; an empty query or no text
        gives []. Never an index out of range."""
        ...


def _words(text: str) -> set[str]:
    return set(content(tokens(text)))


class KeywordSearch:
    """Overlap of content words with the query (case, accents, plurals and stop words aside);
    ties keep the newest first, so the texts are expected oldest first."""

    def rank(self, query: str, texts: Sequence[str], k: int) -> list[int]:
        wanted = _words(query)
        if not wanted or k <= 0:
            return []
        scored = []
        for index, text in enumerate(texts):
            overlap = len(wanted & _words(text))
            if overlap:
                scored.append((-overlap, -index))
        scored.sort()
        return [-index for _, index in scored[:k]]


def ranked(search: MemorySearch, query: str, texts: Sequence[str], k: int = TOP) -> list[int]:
    """``search.rank`` held to its contract: valid, distinct indices, at most ``k``."""
    out: list[int] = []
    for index in search.rank(query, texts, k):
        if isinstance(index, int) and 0 <= index < len(texts) and index not in out:
            out.append(index)
    return out[:k]
