"""Incremental compile of the lorebook (issue 14 §2): an edit recompiles what it changed, and
scans exactly like a compilation from scratch."""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import lorebook_keywords
from engine.lorebook import Lorebook, compile_lorebook, scan
from engine.lorebook_index import replace_parts
from engine.session import Message
from engine.world import Entry, WorldDefinition, load_world


def world_of(*entries: dict[str, Any]) -> WorldDefinition:
    return load_world(
        {
            "name": "Lore",
            "entries": [{"section": "chat-history", **e} for e in entries],
            "variables": [{"id": "phase", "type": "string", "defaultValue": "act1"}],
            "settings": {"lorebookRecursionDepth": 2},
        }
    )


def entry(entry_id: str, *keywords: str, **extra: Any) -> Entry:
    data = {"id": entry_id, "section": "chat-history", "keywords": list(keywords), **extra}
    return Entry.model_validate(data)


def fired(lorebook: Lorebook, *texts: str) -> list[tuple[str, str]]:
    messages = [Message("user", text) for text in texts]
    return [(f.entry_id, f.reason) for f in scan(lorebook, messages, {}, scan_depth=10)]


def from_scratch(lorebook: Lorebook) -> Lorebook:
    return Lorebook(lorebook.world)


def test_an_edited_entry_fires_on_its_new_keyword_and_no_longer_on_its_old_one() -> None:
    base = compile_lorebook(world_of({"id": "mill", "keywords": ["old mill"]}))
    edited = base.with_entry(entry("mill", "water wheel"))
    assert fired(edited, "the water wheel turns") == [
        ("mill", 'keyword "water wheel" in message -1 (user)')
    ]
    assert fired(edited, "the old mill") == []
    assert fired(base, "the old mill") == [("mill", 'keyword "old mill" in message -1 (user)')]


def test_an_edit_compiles_only_the_new_keywords_into_a_small_overlay() -> None:
    base = compile_lorebook(
        world_of(*({"id": f"e{i}", "keywords": [f"name{i}"]} for i in range(50)))
    )
    edited = base.with_entry(entry("e3", "name3", "fresh word"))
    assert edited.table.base[False] is base.table.base[False]  # the big matcher is shared
    assert edited.table.overlay[False] == {"fresh word": edited.table.ids[False]["fresh word"]}
    assert edited.entries[10] is base.entries[10]  # unchanged entries are not recompiled


def test_an_edit_without_new_keywords_shares_the_matchers_and_the_memo() -> None:
    base = compile_lorebook(
        world_of({"id": "a", "keywords": ["ash"]}, {"id": "b", "keywords": ["birch"]})
    )
    edited = base.with_entry(entry("a", "birch", content="changed"))
    assert edited.matchers is base.matchers
    assert fired(edited, "ash and birch") == fired(from_scratch(edited), "ash and birch")


def test_removing_and_appending_entries_scans_like_a_full_compile() -> None:
    base = compile_lorebook(
        world_of(
            {"id": "a", "keywords": ["ash"], "content": "see birch"},
            {"id": "b", "keywords": ["birch"]},
            {"id": "c", "keywords": ["cedar"], "secondaryKeywords": ["ash"]},
        )
    )
    changed = base.without_entry("a").with_entry(entry("d", "Ash", caseSensitive=True))
    assert [e.id for e in changed.world.entries] == ["b", "c", "d"]
    texts = ("Ash and cedar", "ash, birch")
    assert fired(changed, *texts) == fired(from_scratch(changed), *texts)


def test_a_world_compiled_from_its_parent_is_not_hashed() -> None:
    parent = world_of({"id": "a", "keywords": ["ash"]})
    compile_lorebook(parent)
    child = replace_parts(parent, entries=[entry("a", "oak")])
    compiled = compile_lorebook(child, parent=parent)
    assert "content_hash" not in child.__dict__
    assert compile_lorebook(child) is compiled


def test_replace_parts_drops_the_indexes_of_the_original() -> None:
    world = world_of({"id": "a", "keywords": ["ash"]})
    assert "a" in world.entries_by_id and world.content_hash
    copy = replace_parts(world, entries=[entry("b", "birch")])
    assert list(copy.entries_by_id) == ["b"]
    assert copy.content_hash != world.content_hash
    assert list(world.entries_by_id) == ["a"]


def test_a_large_overlay_is_folded_into_a_fresh_base_matcher() -> None:
    base = compile_lorebook(world_of({"id": "a", "keywords": ["ash"]}))
    with mock.patch.object(lorebook_keywords, "_OVERLAY_MIN", 2):
        edited = base.with_entry(entry("a", "one", "two", "three"))
    assert edited.table.overlay[False] == {}
    assert edited.table.base[False] is not base.table.base[False]
    assert fired(edited, "two ash") == fired(from_scratch(edited), "two ash")


WORDS = ("ash", "birch", "cedar", "Ash", "old mill", "mill", "wheel", "酒馆", "ced")
keyword_lists = st.lists(st.sampled_from(WORDS), max_size=3)
entries_strategy = st.builds(
    lambda kid, kws, sec, cs, whole, logic: {
        "id": f"e{kid}",
        "keywords": kws,
        "secondaryKeywords": sec,
        "caseSensitive": cs,
        "matchWholeWords": whole,
        "secondaryKeywordLogic": logic,
        "content": " ".join(sec + kws[:1]),
    },
    st.integers(0, 6),
    keyword_lists,
    keyword_lists,
    st.booleans(),
    st.booleans(),
    st.sampled_from(("AND_ANY", "AND_ALL", "NOT_ANY", "NOT_ALL")),
)
edits_strategy = st.lists(
    st.one_of(entries_strategy, st.integers(0, 6).map(lambda i: f"e{i}")), max_size=8
)
texts_strategy = st.lists(st.text(alphabet=" ashbirchcedrmolwe酒馆A", max_size=30), max_size=3)


@settings(max_examples=150, deadline=None)
@given(
    start=st.lists(entries_strategy, max_size=5, unique_by=lambda e: e["id"]),
    edits=edits_strategy,
    texts=texts_strategy,
    overlay_min=st.sampled_from((0, 2, 256)),
)
def test_any_sequence_of_edits_scans_like_a_compilation_from_scratch(
    start: list[dict[str, Any]], edits: list[Any], texts: list[str], overlay_min: int
) -> None:
    lorebook = Lorebook(world_of(*start))
    with mock.patch.object(lorebook_keywords, "_OVERLAY_MIN", overlay_min):
        for edit in edits:
            if isinstance(edit, str):
                lorebook = lorebook.without_entry(edit)
            else:
                lorebook = lorebook.with_entry(Entry.model_validate(edit))
            assert fired(lorebook, *texts) == fired(from_scratch(lorebook), *texts)
