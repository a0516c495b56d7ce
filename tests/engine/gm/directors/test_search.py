"""Older memories found by a search over the NPC's own (seed 003; decision 25)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.gm.directors.search import KeywordSearch, MemorySearch, ranked

TEXTS = [
    "Day 1: the apothecary bought rye.",
    "Day 2: the apothecary asked about the river pens.",
    "Day 3: a quiet chat about the weather.",
]


def test_keyword_search_ranks_by_overlap_newest_first_on_ties():
    assert KeywordSearch().rank("the river pens and the apothecary", TEXTS, 5) == [1, 0]
    assert KeywordSearch().rank("apothecary", TEXTS, 1) == [1]


def test_an_empty_query_finds_nothing():
    assert KeywordSearch().rank("  ", TEXTS, 5) == []


def test_the_keyword_search_is_a_memory_search():
    assert isinstance(KeywordSearch(), MemorySearch)


class Careless:
    def rank(self, query: str, texts: Sequence[str], k: int) -> list[int]:
        return [7, 1, 1, -1, 0, 2, 2]


def test_ranked_holds_a_search_to_its_contract():
    assert ranked(Careless(), "q", TEXTS, 2) == [1, 0]
