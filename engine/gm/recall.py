"""Finding an NPC's older memories (seed 003: the Scene Director gets "los últimos recuerdos que
cada PNJ podría tener", and "para recuerdos más antiguos, la búsqueda semántica recupera los que
podrían importar"; GAME_MASTER.md decision 25: top 5 by cosine similarity, behind an interface,
with a keyword fallback).

Every searcher answers ``search(npc_id, query, k) -> list[Memory]``, best first, among the
memories the NPC still has today (``engine.gm.memory``: forgotten and evicted ones are never
found). ``SemanticMemorySearch`` ranks by the cosine of an ``engine.gm.embedding.Embedder``'s
vectors and turns to ``KeywordMemorySearch`` (shared words, for Chinese shared character pairs)
when it has no embedder, the embedder fails, or the query gives it nothing to compare. Ties go
to the more important, then the newer memory. ``recall`` is what a context builder wants: the
latest few, and the ones among the rest that bear on what is being said. ``SemanticRank`` is the
same scoring over bare texts, ``rank(query, texts, k) -> list[int]``: the shape of the Scene
Director's ``engine.gm.directors.search.MemorySearch``, which hands it one NPC's own memories.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.gm.embedding import Embedder, EmbeddingUnavailable, HashedNgramEmbedder, cosine
from engine.gm.memory import memories
from engine.gm.mentions import fold
from engine.gm.state import GMState
from engine.gm.world import GameMaster, Memory

TOP_K = 5  # decision 25
LATEST = 3  # the newest memories a context always carries
MIN_SIMILARITY = 0.12  # below this a hashed-vector match is noise (a shared "the")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{3,}")


class MemorySearch(Protocol):
    """What a context builder calls: an NPC's memories that bear on ``query``, best first."""

    def search(self, npc_id: str, query: str, k: int) -> list[Memory]: ...


def keywords(text: str) -> set[str]:
    """Words of three letters or more, folded; for Chinese, each pair of characters."""
    folded = fold(text)
    out = set(_WORD.findall(folded))
    for run in _CJK_RUN.findall(folded):
        out.update(run[i : i + 2] for i in range(len(run) - 1))
        if len(run) == 1:
            out.add(run)
    return out


def keyword_scores(query: str, texts: Sequence[str]) -> list[float]:
    """How many words each text shares with the query (scaled by the query's length)."""
    asked = keywords(query)
    if not asked:
        return [0.0] * len(texts)
    return [len(asked & keywords(text)) / math.sqrt(len(asked)) for text in texts]


def semantic_scores(
    embedder: Embedder | None, query: str, texts: Sequence[str]
) -> list[float] | None:
    """The cosine of each text with the query (0 below ``MIN_SIMILARITY``); None when the
    embedder is missing, fails, or the query gives it nothing to compare."""
    if embedder is None or not texts:
        return None
    try:
        vectors = embedder.embed([query, *texts])
    except EmbeddingUnavailable:
        return None
    if not any(vectors[0]):
        return None
    found = [cosine(vectors[0], vector) for vector in vectors[1:]]
    return [score if score >= MIN_SIMILARITY else 0.0 for score in found]


def scores(embedder: Embedder | None, query: str, texts: Sequence[str]) -> tuple[list[float], str]:
    """Semantic scores when the embedder can give them, else keyword ones; and which it was."""
    found = semantic_scores(embedder, query, texts) if query.strip() else None
    if found is not None and embedder is not None:
        return found, embedder.name
    return keyword_scores(query, texts), "keywords"


def _best(found: list[float], pool: Sequence[Memory], k: int) -> list[Memory]:
    """Best score first, then importance, then the newest (a later index is newer)."""
    order = [i for i, score in enumerate(found) if score > 0]
    order.sort(key=lambda i: (-found[i], -pool[i].importance, -pool[i].day, -i))
    return [pool[i] for i in order[: max(0, k)]]


@dataclass
class KeywordMemorySearch:
    """The plain-text fallback: memories sharing words with the query."""

    gm: GameMaster
    state: GMState

    def search(
        self,
        npc_id: str,
        query: str,
        k: int = TOP_K,
        *,
        about: str | None = None,
        among: Sequence[Memory] | None = None,
    ) -> list[Memory]:
        pool = list(among) if among is not None else memories(self.gm, self.state, npc_id, about)
        return _best(keyword_scores(query, [m.text for m in pool]), pool, k)


@dataclass
class SemanticMemorySearch:
    """Cosine similarity over an embedder's vectors (the hashed n-grams by default); the
    keyword search when it cannot say anything. ``used`` tells which answered last."""

    gm: GameMaster
    state: GMState
    embedder: Embedder | None = field(default_factory=HashedNgramEmbedder)
    used: str = ""

    def search(
        self,
        npc_id: str,
        query: str,
        k: int = TOP_K,
        *,
        about: str | None = None,
        among: Sequence[Memory] | None = None,
    ) -> list[Memory]:
        pool = list(among) if among is not None else memories(self.gm, self.state, npc_id, about)
        if not pool or not query.strip():
            return []
        found, self.used = scores(self.embedder, query, [m.text for m in pool])
        return _best(found, pool, k)


@dataclass
class SemanticRank:
    """The same search over bare texts, fitting ``engine.gm.directors.search.MemorySearch``:
    ``rank(query, texts, k)`` gives the indices of at most ``k`` texts, best first (ties: the
    later, newer one); none for an empty query or no match."""

    embedder: Embedder | None = field(default_factory=HashedNgramEmbedder)
    used: str = ""

    def rank(self, query: str, texts: Sequence[str], k: int) -> list[int]:
        if not query.strip() or not texts or k <= 0:
            return []
        found, self.used = scores(self.embedder, query, texts)
        order = [i for i, score in enumerate(found) if score > 0]
        order.sort(key=lambda i: (-found[i], -i))
        return order[:k]


def memory_search(
    gm: GameMaster, state: GMState, embedder: Embedder | None = None
) -> SemanticMemorySearch:
    """The searcher the engine uses: semantic with ``embedder`` (the hashed n-grams when None)."""
    return SemanticMemorySearch(gm, state, embedder or HashedNgramEmbedder())


@dataclass(frozen=True)
class Recall:
    latest: list[Memory]  # the newest, oldest first
    older: list[Memory]  # among the rest, those that bear on the query, best first


def recall(
    gm: GameMaster,
    state: GMState,
    npc_id: str,
    query: str,
    *,
    about: str | None = None,
    latest: int = LATEST,
    k: int = TOP_K,
    search: SemanticMemorySearch | None = None,
) -> Recall:
    """What ``npc_id`` brings to mind now: its ``latest`` newest memories (about one character,
    if given), and up to ``k`` older ones that the search ties to ``query``."""
    held = memories(gm, state, npc_id, about)
    order = sorted(range(len(held)), key=lambda i: (held[i].day, i))
    newest = [held[i] for i in order[-latest:]] if latest > 0 else []
    rest = [held[i] for i in order[: len(order) - len(newest)]]
    searcher = search or memory_search(gm, state)
    older = searcher.search(npc_id, query, k, among=rest) if rest else []
    return Recall(newest, older)
