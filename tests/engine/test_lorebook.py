"""Keyword matching, secondary logic, recursion and conditions of seed 004 "条目与分区"."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.lorebook import Fired, compile_lorebook, scan
from engine.session import Message
from engine.world import WorldDefinition, load_world


def world_of(*entries: dict[str, Any], **world_settings: Any) -> WorldDefinition:
    return load_world(
        {
            "name": "Lore",
            "entries": [{"section": "chat-history", **e} for e in entries],
            "variables": [
                {"id": "health", "type": "number", "defaultValue": 100},
                {"id": "phase", "type": "string", "defaultValue": "act1"},
            ],
            "settings": world_settings,
        }
    )


def fired(world: WorldDefinition, *texts: str, **kwargs: Any) -> dict[str, str]:
    values = kwargs.pop("values", {})
    toggles = kwargs.pop("toggles", None)
    roles = ("user", "assistant")
    messages = [Message(roles[i % 2], t) for i, t in enumerate(texts)]
    result = scan(compile_lorebook(world), messages, values, toggles, **kwargs)
    return {f.entry_id: f.reason for f in result}


def test_a_keyword_fires_its_entry_with_the_message_it_was_found_in() -> None:
    world = world_of({"id": "tavern", "keywords": ["tavern", "inn"]})
    assert fired(world, "We reach the Tavern.", "Inside it is warm.") == {
        "tavern": 'keyword "tavern" in message -2 (user)'
    }


def test_the_reason_names_the_most_recent_keyword() -> None:
    world = world_of({"id": "tavern", "keywords": ["tavern", "inn"]})
    assert fired(world, "the tavern", "an inn") == {
        "tavern": 'keyword "inn" in message -1 (assistant)'
    }


def test_matching_is_case_insensitive_unless_the_entry_says_otherwise() -> None:
    world = world_of(
        {"id": "loose", "keywords": ["ARIA"]},
        {"id": "strict", "keywords": ["Aria"], "caseSensitive": True},
    )
    assert set(fired(world, "aria waves")) == {"loose"}
    assert set(fired(world, "Aria waves")) == {"loose", "strict"}


def test_only_the_last_scan_depth_messages_are_scanned() -> None:
    world = world_of({"id": "dragon", "keywords": ["dragon"]}, lorebookScanDepth=2)
    assert fired(world, "a dragon!", "run", "hide") == {}
    assert fired(world, "a dragon!", "run") == {"dragon": 'keyword "dragon" in message -2 (user)'}
    assert fired(world, "a dragon!", "run", "hide", scan_depth=3) != {}
    assert fired(world, "a dragon!", scan_depth=0) == {}


def test_substring_matching_is_the_default() -> None:
    world = world_of({"id": "tavern", "keywords": ["tavern"]})
    assert set(fired(world, "two taverns")) == {"tavern"}


def test_whole_words_need_word_edges() -> None:
    world = world_of({"id": "tavern", "keywords": ["tavern"], "matchWholeWords": True})
    assert fired(world, "two taverns") == {}
    assert fired(world, "subtavern") == {}
    assert set(fired(world, "the tavern.")) == {"tavern"}
    assert set(fired(world, "tavern")) == {"tavern"}
    assert set(fired(world, "(tavern)")) == {"tavern"}


def test_whole_words_do_not_break_cjk_keywords() -> None:
    world = world_of(
        {"id": "jiuguan", "keywords": ["酒馆"], "matchWholeWords": True},
        {"id": "kai", "keywords": ["Kai"], "matchWholeWords": True},
        {"id": "sakaba", "keywords": ["酒場"], "matchWholeWords": True},
    )
    assert set(fired(world, "我们去酒馆吧")) == {"jiuguan"}
    assert set(fired(world, "Kai说他饿了")) == {"kai"}
    assert set(fired(world, "去Kai家")) == {"kai"}
    assert fired(world, "Kaimon arrives") == {}
    assert set(fired(world, "いつもの酒場で")) == {"sakaba"}


def test_a_keyword_edge_that_is_punctuation_matches_anywhere() -> None:
    world = world_of({"id": "tag", "keywords": ["#quest"], "matchWholeWords": True})
    assert set(fired(world, "see a#quest")) == {"tag"}


def test_whitespace_in_keywords_matches_any_whitespace() -> None:
    world = world_of({"id": "mill", "keywords": ["old  mill"]})
    assert set(fired(world, "by the old\nmill")) == {"mill"}


def test_overlapping_keywords_all_fire() -> None:
    world = world_of(
        {"id": "inn", "keywords": ["inn"]},
        {"id": "innkeeper", "keywords": ["innkeeper"]},
        {"id": "keeper", "keywords": ["keeper"]},
        {"id": "keep", "keywords": ["keep"], "matchWholeWords": True},
    )
    assert set(fired(world, "the innkeeper smiles")) == {"inn", "innkeeper", "keeper"}


def test_a_keyword_longer_than_the_trie_limit_still_matches() -> None:
    phrase = "the ancient and terrible dragon of the northern mountains, awakened at last"
    world = world_of(
        {"id": "long", "keywords": [phrase]},
        {"id": "long-word", "keywords": [phrase], "matchWholeWords": True},
    )
    assert set(fired(world, f"Behold {phrase.upper()}!")) == {"long", "long-word"}
    assert set(fired(world, f"x{phrase}")) == {"long"}


@pytest.mark.parametrize(
    ("logic", "text", "fires"),
    [
        ("AND_ANY", "sword", False),
        ("AND_ANY", "sword at night", True),
        ("AND_ANY", "sword in rain at night", True),
        ("AND_ALL", "sword at night", False),
        ("AND_ALL", "sword in rain at night", True),
        ("NOT_ANY", "sword", True),
        ("NOT_ANY", "sword at night", False),
        ("NOT_ALL", "sword at night", True),
        ("NOT_ALL", "sword in rain at night", False),
        ("NOT_ALL", "a shield at night", False),
    ],
)
def test_secondary_keyword_logic(logic: str, text: str, fires: bool) -> None:
    world = world_of(
        {
            "id": "blade",
            "keywords": ["sword"],
            "secondaryKeywords": ["night", "rain"],
            "secondaryKeywordLogic": logic,
        }
    )
    assert ("blade" in fired(world, text)) is fires


def test_secondary_keywords_follow_whole_word_matching() -> None:
    world = world_of(
        {
            "id": "blade",
            "keywords": ["sword"],
            "secondaryKeywords": ["night"],
            "matchWholeWords": True,
        }
    )
    assert fired(world, "sword at nightfall") == {}
    assert set(fired(world, "sword at night")) == {"blade"}


RECURSION = (
    {"id": "castle", "keywords": ["castle"], "content": "The castle keeps a DRAGON."},
    {"id": "dragon", "keywords": ["dragon"], "content": "The dragon hoards gold."},
    {"id": "gold", "keywords": ["gold"], "content": "Gold is cursed."},
)


def test_without_recursion_entry_content_triggers_nothing() -> None:
    assert set(fired(world_of(*RECURSION), "the castle")) == {"castle"}


def test_recursion_follows_content_for_as_many_passes_as_the_depth() -> None:
    assert fired(world_of(*RECURSION, lorebookRecursionDepth=1), "the castle") == {
        "castle": 'keyword "castle" in message -1 (user)',
        "dragon": 'recursion from entry "castle" (keyword "dragon")',
    }
    assert fired(world_of(*RECURSION, lorebookRecursionDepth=5), "the castle") == {
        "castle": 'keyword "castle" in message -1 (user)',
        "dragon": 'recursion from entry "castle" (keyword "dragon")',
        "gold": 'recursion from entry "dragon" (keyword "gold")',
    }


def test_prevent_recursion_keeps_an_entrys_content_from_triggering() -> None:
    castle, dragon, gold = RECURSION
    world = world_of({**castle, "preventRecursion": True}, dragon, gold, lorebookRecursionDepth=3)
    assert set(fired(world, "the castle")) == {"castle"}


def test_exclude_recursion_entries_fire_only_from_the_chat() -> None:
    castle, dragon, gold = RECURSION
    world = world_of(castle, {**dragon, "excludeRecursion": True}, gold, lorebookRecursionDepth=3)
    assert set(fired(world, "the castle")) == {"castle"}
    assert set(fired(world, "a dragon")) == {"dragon", "gold"}


def test_recursed_content_can_supply_a_secondary_keyword() -> None:
    world = world_of(
        {"id": "castle", "keywords": ["castle"], "content": "It is night."},
        {
            "id": "ghost",
            "keywords": ["castle"],
            "secondaryKeywords": ["night"],
            "content": "A ghost walks.",
        },
        lorebookRecursionDepth=1,
    )
    assert fired(world, "the castle") == {
        "castle": 'keyword "castle" in message -1 (user)',
        "ghost": 'recursion from entry "castle" (keyword "night")',
    }


def test_keyword_entries_with_conditions_need_both() -> None:
    world = world_of(
        {
            "id": "wounded",
            "keywords": ["fight"],
            "conditions": [{"variableId": "health", "operator": "lt", "value": 30}],
        }
    )
    assert fired(world, "a fight") == {}
    assert fired(world, "a fight", values={"health": 25}) == {
        "wounded": 'keyword "fight" in message -1 (user); condition health < 30 (is 25)'
    }


def test_an_entry_with_conditions_and_no_keywords_fires_on_its_conditions() -> None:
    world = world_of(
        {
            "id": "act2",
            "conditions": [
                {"variableId": "phase", "operator": "eq", "value": "act2"},
                {"variableId": "health", "operator": "gt", "value": 0},
            ],
            "conditionLogic": "all",
        },
        {"id": "inert"},
    )
    assert fired(world, "hello") == {}
    assert fired(world, "hello", values={"phase": "act2"}) == {
        "act2": 'condition phase == "act2" (is "act2") and health > 0 (is 100)'
    }


def test_always_sent_sections_fire_with_their_section_and_conditions() -> None:
    world = world_of(
        {"id": "preset", "section": "system-presets"},
        {"id": "examples", "section": "examples"},
        {"id": "post", "section": "post-history", "keywords": ["ignored"]},
        {
            "id": "hurt",
            "section": "system-presets",
            "conditions": [{"variableId": "health", "operator": "lt", "value": 30}],
        },
        {"id": "hello", "section": "system-presets", "role": "greeting"},
    )
    assert fired(world) == {
        "preset": "always (system-presets)",
        "examples": "always (examples)",
        "post": "always (post-history)",
    }
    assert fired(world, values={"health": 10})["hurt"] == "condition health < 30 (is 10)"


def test_disabled_entries_never_fire_unless_toggled_on() -> None:
    world = world_of(
        {"id": "secret", "keywords": ["door"], "enabled": False},
        {"id": "preset", "section": "system-presets", "enabled": False},
        {"id": "open", "keywords": ["door"]},
    )
    assert set(fired(world, "a door")) == {"open"}
    toggles = {"secret": True, "preset": True, "open": False}
    assert set(fired(world, "a door", toggles=toggles)) == {"secret", "preset"}


def test_results_come_in_world_order() -> None:
    world = world_of(
        {"id": "b", "keywords": ["beta"]},
        {"id": "a", "keywords": ["alpha"]},
        {"id": "c", "section": "post-history"},
    )
    result = scan(compile_lorebook(world), [Message("user", "alpha beta")], {})
    assert [f.entry_id for f in result] == ["b", "a", "c"]
    assert result[0] == Fired("b", 'keyword "beta" in message -1 (user)')
    assert result[0].to_dict() == {"entry": "b", "reason": 'keyword "beta" in message -1 (user)'}


def test_compilation_is_cached_by_content_hash() -> None:
    data = {"name": "Same", "entries": [{"id": "a", "section": "chat-history", "keywords": ["x"]}]}
    assert compile_lorebook(load_world(data)) is compile_lorebook(load_world(data))
    other = {**data, "name": "Other"}
    assert compile_lorebook(load_world(other)) is not compile_lorebook(load_world(data))


def test_scanning_twice_gives_the_same_answer() -> None:
    world = world_of(*RECURSION, lorebookRecursionDepth=2)
    assert fired(world, "castle") == fired(world, "castle")


# --- the matcher agrees with a naive reference -------------------------------------------

_WORD = re.compile(r"[^\W\u3040-\u30ff\u4e00-\u9fff]")


def naive_found(keyword: str, text: str, whole: bool) -> bool:
    keyword = " ".join(keyword.lower().split())
    text = " ".join(text.lower().split())
    if not keyword:
        return False
    start = text.find(keyword)
    while start != -1:
        end = start + len(keyword)
        left_ok = not _WORD.match(keyword[0]) or start == 0 or not _WORD.match(text[start - 1])
        right_ok = not _WORD.match(keyword[-1]) or end == len(text) or not _WORD.match(text[end])
        if not whole or (left_ok and right_ok):
            return True
        start = text.find(keyword, start + 1)
    return False


ALPHABET = "abA 酒é."
keywords = st.text(alphabet="abA酒é .", min_size=1, max_size=4)
entries = st.lists(
    st.fixed_dictionaries(
        {
            "keywords": st.lists(keywords, min_size=1, max_size=3),
            "secondaryKeywords": st.lists(keywords, max_size=2),
            "secondaryKeywordLogic": st.sampled_from(["AND_ANY", "AND_ALL", "NOT_ANY", "NOT_ALL"]),
            "matchWholeWords": st.booleans(),
        }
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=150, deadline=None)
@given(entries=entries, texts=st.lists(st.text(alphabet=ALPHABET, max_size=30), max_size=3))
def test_the_matcher_agrees_with_a_naive_scan(
    entries: list[dict[str, Any]], texts: list[str]
) -> None:
    world = world_of(*({"id": f"e{i}", **e} for i, e in enumerate(entries)), lorebookScanDepth=5)
    got = set(fired(world, *texts))
    expected = {f"e{i}" for i, e in enumerate(entries) if naive_fires(e, texts)}
    assert got == expected


def naive_fires(entry: dict[str, Any], texts: list[str]) -> bool:
    """Primary and secondary keywords may each be found in any scanned message."""
    whole = entry["matchWholeWords"]
    if not any(naive_found(k, t, whole) for k in entry["keywords"] for t in texts):
        return False
    secondary = [
        any(naive_found(k, t, whole) for t in texts)
        for k in entry["secondaryKeywords"]
        if k.strip()
    ]
    if not secondary:
        return True
    return {
        "AND_ANY": any(secondary),
        "AND_ALL": all(secondary),
        "NOT_ANY": not any(secondary),
        "NOT_ALL": not all(secondary),
    }[entry["secondaryKeywordLogic"]]


recursive_entries = st.lists(
    st.fixed_dictionaries(
        {
            "keywords": st.lists(keywords, min_size=1, max_size=2),
            "secondaryKeywords": st.lists(keywords, max_size=2),
            "secondaryKeywordLogic": st.sampled_from(["AND_ANY", "AND_ALL", "NOT_ANY", "NOT_ALL"]),
            "matchWholeWords": st.booleans(),
            "content": st.text(alphabet=ALPHABET, max_size=12),
            "preventRecursion": st.booleans(),
            "excludeRecursion": st.booleans(),
        }
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=150, deadline=None)
@given(
    entries=recursive_entries,
    texts=st.lists(st.text(alphabet=ALPHABET, max_size=20), max_size=2),
    depth=st.integers(0, 3),
)
def test_recursion_agrees_with_a_naive_pass_by_pass_scan(
    entries: list[dict[str, Any]], texts: list[str], depth: int
) -> None:
    world = world_of(
        *({"id": f"e{i}", **e} for i, e in enumerate(entries)),
        lorebookScanDepth=5,
        lorebookRecursionDepth=depth,
    )
    expected = {i for i, e in enumerate(entries) if naive_fires(e, texts)}
    recursed: list[str] = []
    frontier = sorted(expected)
    for _ in range(depth):
        recursed += [entries[i]["content"] for i in frontier if not entries[i]["preventRecursion"]]
        frontier = [
            i
            for i, e in enumerate(entries)
            if i not in expected and not e["excludeRecursion"] and naive_fires(e, texts + recursed)
        ]
        if not frontier:
            break
        expected.update(frontier)
    assert set(fired(world, *texts)) == {f"e{i}" for i in expected}
