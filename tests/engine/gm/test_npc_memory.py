"""NPC memory (seed 001 "NPC con memoria"; decisions 18 and 25): one sentence per NPC when a talk
closes, forgotten after 3 / 30 / never game days, 8 per character and 40 per NPC (the least
important, then the oldest, go first), and older memories found by semantic search
(engine.gm.recall over engine.gm.embedding) with a keyword fallback. The forgetting table and
the caps themselves are also pinned in test_memory.py; here they are seen through the search."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.gm.embedding import EmbeddingUnavailable, HashedNgramEmbedder, cosine, features
from engine.gm.memory import NPC_CAP, PAIR_CAP, memories, one_sentence, remember
from engine.gm.recall import (
    KeywordMemorySearch,
    MemorySearch,
    SemanticMemorySearch,
    SemanticRank,
    memory_search,
    recall,
)
from engine.gm.world import GameClock, Memory
from tests.engine.gm.toolkit import call, demo_scene
from tests.engine.gm.worlds import demo_world, new_state, play


def on_day(state, day: int) -> None:
    state.clock = GameClock(day=day, time_of_day="morning")


def texts(found: Sequence[Memory]) -> list[str]:
    return [m.text for m in found]


# --- one sentence per NPC ------------------------------------------------------------------------


def test_a_memory_keeps_only_its_first_sentence():
    assert one_sentence("Ren paid the debt. He smiled at me.") == "Ren paid the debt."
    assert one_sentence('He said "go!" Then he left.') == 'He said "go!"'
    assert one_sentence("Mr. Brant came by. Late.") == "Mr. Brant came by."
    assert one_sentence("任还清了债。他笑了。") == "任还清了债。"
    scene = demo_scene()
    memory = {"npc": "hilda", "text": "Ren paid. He smiled.", "importance": 2}
    assert call(scene, "log_event", narration="Hilda nods.", memories=[memory]).ok
    assert texts(memories(scene.gm, scene.state, "hilda")) == ["Ren paid."]


def test_log_event_writes_one_sentence_per_npc_at_most():
    scene = demo_scene()
    outcome = call(
        scene,
        "log_event",
        narration="Hilda nods.",
        memories=[
            {"npc": "hilda", "text": "Ren asked about the road.", "importance": 1},
            {"npc": "hilda", "text": "Ren was polite.", "importance": 2},
        ],
    )
    assert outcome.ok and outcome.changes["memories"] == [{"npc": "hilda", "importance": 1}]
    assert texts(memories(scene.gm, scene.state, "hilda")) == ["Ren asked about the road."]


def test_offline_a_closing_talk_leaves_the_npc_one_sentence():
    world = demo_world()
    state = new_state(world)
    for text in ("Hilda, you idiot!", "Goodbye, Hilda"):
        result = play(world, state, text, "ren")
        state = result.state
    assert result.changes["memories"] == [{"npc": "hilda", "importance": 2}]
    assert state.gm is not None
    [memory] = state.gm.memories["hilda"]
    assert (memory.about, memory.text, memory.day) == ("ren", "Ren Ashby insulted me.", 1)


def test_offline_a_talk_that_goes_on_writes_no_memory_yet():
    world = demo_world()
    result = play(world, new_state(world), "Hilda, any news?", "ren")
    assert "memories" not in result.changes
    assert result.state.gm is not None and "hilda" not in result.state.gm.memories


# --- forgetting and caps, through the search -----------------------------------------------------


@pytest.mark.parametrize(("importance", "last_day"), [(1, 4), (2, 31), (3, 10_000)])
def test_a_memory_is_found_until_its_importance_forgets_it(importance, last_day):
    scene = demo_scene()
    remember(scene.gm, scene.state, "hilda", "ren", "Ren asked about the cellar key.", importance)
    search = memory_search(scene.gm, scene.state)
    on_day(scene.state, last_day)
    assert texts(search.search("hilda", "cellar key", 5)) == ["Ren asked about the cellar key."]
    on_day(scene.state, last_day + 1)
    expected = ["Ren asked about the cellar key."] if importance == 3 else []
    assert texts(search.search("hilda", "cellar key", 5)) == expected


def test_a_memory_pushed_out_by_the_pair_cap_is_never_found_again():
    scene = demo_scene()
    remember(scene.gm, scene.state, "hilda", "ren", "Ren asked about the cellar key.", 1)
    for n in range(PAIR_CAP):
        remember(scene.gm, scene.state, "hilda", "ren", f"Ren drank ale number {n}.", 2)
    assert len(memories(scene.gm, scene.state, "hilda", about="ren")) == PAIR_CAP
    assert memory_search(scene.gm, scene.state).search("hilda", "cellar key", 5) == []


def test_the_npc_cap_evicts_the_least_important_then_the_oldest_across_characters():
    scene = demo_scene()
    on_day(scene.state, 2)
    remember(scene.gm, scene.state, "hilda", "ada", "Ada mentioned the chapel bell.", 1)
    on_day(scene.state, 3)
    remember(scene.gm, scene.state, "hilda", "ada", "Ada asked about the chapel roof.", 1)
    for n in range(NPC_CAP - 2):
        remember(scene.gm, scene.state, "hilda", f"pc{n % 6}", f"Talk number {n}.", 2)
    lost = remember(scene.gm, scene.state, "hilda", "ren", "Ren swore an oath.", 3)
    assert texts(lost) == ["Ada mentioned the chapel bell."]
    found = memory_search(scene.gm, scene.state).search("hilda", "the chapel", 5)
    assert texts(found) == ["Ada asked about the chapel roof."]


# --- semantic search ----------------------------------------------------------------------------


def seeded_scene():
    scene = demo_scene()
    lines = [
        (1, "Ren paid his debt to me in silver.", 2),
        (2, "Ren asked about the cellar key.", 1),
        (3, "Ren sang badly by the hearth.", 2),
        (4, "Ren pagó lo que debía a la tabernera.", 2),
        (5, "任问起了地窖的钥匙。", 2),
    ]
    for day, text, importance in lines:
        on_day(scene.state, day)
        remember(scene.gm, scene.state, "hilda", "ren", text, importance)
    return scene


def test_the_semantic_search_ranks_by_meaning_of_shared_words_best_first():
    scene = seeded_scene()
    search = memory_search(scene.gm, scene.state)
    assert texts(search.search("hilda", "Did he ever pay his debts?", 1)) == [
        "Ren paid his debt to me in silver."
    ]
    assert texts(search.search("hilda", "Where is the key to the cellar?", 1)) == [
        "Ren asked about the cellar key."
    ]
    assert search.used == "hashed-ngrams"


def test_the_semantic_search_reads_spanish_and_chinese():
    scene = seeded_scene()
    search = memory_search(scene.gm, scene.state)
    assert texts(search.search("hilda", "¿Pagó su deuda?", 1)) == [
        "Ren pagó lo que debía a la tabernera."
    ]
    assert texts(search.search("hilda", "地窖钥匙", 1)) == ["任问起了地窖的钥匙。"]


def test_the_search_returns_at_most_k_and_nothing_unrelated():
    scene = seeded_scene()
    search = memory_search(scene.gm, scene.state)
    assert search.search("hilda", "dragons over the mountains", 5) == []
    assert len(search.search("hilda", "Ren", 2)) <= 2


def test_the_search_is_only_among_that_npcs_memories():
    scene = seeded_scene()
    assert memory_search(scene.gm, scene.state).search("greta", "cellar key", 5) == []


def test_the_hashed_embedder_is_deterministic_and_fits_the_interface():
    embedder = HashedNgramEmbedder()
    first = embedder.embed(["the cellar key", "a silver debt"])
    assert first == embedder.embed(["the cellar key", "a silver debt"])
    assert len(first[0]) == embedder.dimensions
    assert cosine(first[0], first[0]) == pytest.approx(1.0)
    assert "w:cellar" in features("The CELLAR") and "地窖" in features("地窖的钥匙")


def test_every_searcher_fits_the_memory_search_protocol():
    scene = seeded_scene()
    searchers: list[MemorySearch] = [
        SemanticMemorySearch(scene.gm, scene.state),
        KeywordMemorySearch(scene.gm, scene.state),
    ]
    for searcher in searchers:
        assert texts(searcher.search("hilda", "cellar key", 1)) == [
            "Ren asked about the cellar key."
        ]


# --- the keyword fallback -----------------------------------------------------------------------


class BrokenEmbedder:
    name = "broken"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise EmbeddingUnavailable("no model here")


class BlankEmbedder:
    name = "blank"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[0.0, 0.0] for _ in texts]


@pytest.mark.parametrize("embedder", [None, BrokenEmbedder(), BlankEmbedder()])
def test_without_a_working_embedder_the_search_falls_back_to_keywords(embedder):
    scene = seeded_scene()
    search = SemanticMemorySearch(scene.gm, scene.state, embedder)
    assert texts(search.search("hilda", "the cellar key", 1)) == ["Ren asked about the cellar key."]
    assert search.used == "keywords"


def test_the_keyword_search_ranks_shared_words_then_importance_then_newest():
    scene = demo_scene()
    for day, text, importance in [
        (1, "Ren mentioned the mill.", 1),
        (2, "Ren mentioned the mill again.", 2),
        (3, "Ren mentioned the old mill road.", 1),
    ]:
        on_day(scene.state, day)
        remember(scene.gm, scene.state, "hilda", "ren", text, importance)
    search = KeywordMemorySearch(scene.gm, scene.state)
    assert texts(search.search("hilda", "old mill road", 3)) == [
        "Ren mentioned the old mill road.",
        "Ren mentioned the mill again.",
        "Ren mentioned the mill.",
    ]
    assert search.search("hilda", "a b", 3) == []


# --- recall: the latest, and older ones by search -----------------------------------------------


def test_recall_brings_the_latest_and_the_older_ones_the_talk_touches():
    scene = seeded_scene()
    brought = recall(scene.gm, scene.state, "hilda", "his debt in silver", about="ren", latest=2)
    assert texts(brought.latest) == [
        "Ren pagó lo que debía a la tabernera.",
        "任问起了地窖的钥匙。",
    ]
    assert texts(brought.older) == ["Ren paid his debt to me in silver."]
    assert all(m not in brought.latest for m in brought.older)


# --- the Scene Director's ranking interface -----------------------------------------------------


def test_semantic_rank_fits_the_directors_memory_search_and_ranks_texts():
    from engine.gm.directors.search import MemorySearch as DirectorSearch
    from engine.gm.directors.search import ranked

    texts = [
        "Ren sang badly by the hearth.",
        "Ren paid his debt to me in silver.",
        "Ren asked about the cellar key.",
    ]
    rank = SemanticRank()
    assert isinstance(rank, DirectorSearch)
    assert ranked(rank, "Did he pay his debt?", texts, 5)[0] == 1
    assert rank.rank("", texts, 5) == [] and rank.rank("dragons", texts, 5) == []
    assert SemanticRank(BrokenEmbedder()).rank("cellar key", texts, 1) == [2]
