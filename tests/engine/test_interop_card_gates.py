"""Card export as SillyTavern reads it (issue 35 §9): the book keeps its ``extensions``, which
validateV2 requires; a card's top-level ``case_sensitive`` is not pushed into the extension
SillyTavern applies; condition-gated entries, which SillyTavern cannot gate, are listed and
either left out of the book (kept for Fabula in the stash) or exported switched off."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.interop import (
    gated_entries,
    import_file,
    read_png_card,
    world_to_card,
    world_to_card_png,
)
from engine.interop.cards import card_to_world
from engine.world import export_world, load_world
from tests.support.corpus import corpus_dir, requires_corpus

WORLD: dict[str, Any] = {
    "name": "Hollow",
    "variables": [
        {"id": "health", "name": "Health", "type": "number", "defaultValue": 100},
        {"id": "lantern", "name": "Lantern", "type": "boolean", "defaultValue": True},
    ],
    "entries": [
        {"id": "narrator", "role": "system", "content": "You narrate Hollow's Edge."},
        {"id": "atlas", "name": "Atlas", "section": "chat-history", "keywords": ["Atlas"],
         "content": "The Atlas maps the marsh."},
        {"id": "wounded", "name": "Wounded", "section": "chat-history",
         "content": "{{user}} bleeds ({{health}} left). [health: -10]",
         "conditions": [{"variableId": "health", "operator": "lt", "value": 50}]},
        {"id": "dark", "name": "Lantern gone dark", "section": "chat-history",
         "keywords": ["lantern"], "content": "The lantern is out.",
         "conditions": [{"variableId": "lantern", "operator": "eq", "value": False}]},
    ],
}  # fmt: skip

V2_DATA_FIELDS = (
    "name", "description", "personality", "scenario", "first_mes", "mes_example",
    "creator_notes", "system_prompt", "post_history_instructions", "alternate_greetings",
    "tags", "creator", "character_version", "extensions",
)  # fmt: skip


def validate_v2(card: dict[str, Any]) -> bool:
    """SillyTavern's TavernCardValidator.validateV2 (src/validator), written out for tests."""
    data = card.get("data")
    if card.get("spec") != "chara_card_v2" or card.get("spec_version") != "2.0":
        return False
    if not isinstance(data, dict) or not all(f in data for f in V2_DATA_FIELDS):
        return False
    if not isinstance(data["alternate_greetings"], list) or not isinstance(data["tags"], list):
        return False
    if not isinstance(data["extensions"], dict):
        return False
    book = data.get("character_book")
    if not book:
        return True
    has = "extensions" in book and "entries" in book
    return has and isinstance(book["entries"], list) and isinstance(book["extensions"], dict)


def book_of(card: dict[str, Any]) -> dict[str, Any]:
    return dict(card["data"]["character_book"])


def entry_named(card: dict[str, Any], comment: str) -> dict[str, Any]:
    return next(e for e in book_of(card)["entries"] if e["comment"] == comment)


def test_a_v2_card_with_a_lorebook_keeps_the_book_extensions_and_passes_validate_v2():
    card = world_to_card(load_world(WORLD), "v2")

    assert book_of(card)["extensions"] == {}
    assert validate_v2(card)


ST_CARD: dict[str, Any] = {
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        **dict.fromkeys(V2_DATA_FIELDS, ""),
        "name": "Ada",
        "first_mes": "Hello.",
        "alternate_greetings": [],
        "tags": [],
        "extensions": {},
        "character_book": {
            "extensions": {},
            "entries": [
                {"id": 0, "keys": ["Atlas"], "secondary_keys": [], "comment": "Atlas",
                 "content": "The Atlas maps the marsh.", "constant": False, "selective": True,
                 "insertion_order": 100, "enabled": True, "position": "before_char",
                 "case_sensitive": True, "use_regex": True, "extensions": {}},
            ],
        },
    },
}  # fmt: skip


def test_a_top_level_case_sensitive_stays_there_and_sillytavern_keeps_its_own_null():
    world = card_to_world(ST_CARD)

    atlas = entry_named(world_to_card(world, "v2"), "Atlas")

    # SillyTavern applies only the extension: null, as the card had it, so "ATLAS" still fires.
    assert atlas["extensions"]["case_sensitive"] is None
    assert atlas["case_sensitive"] is True
    assert "spec_case_sensitive" not in atlas["extensions"]
    again = card_to_world(world_to_card(world, "v2"))
    assert export_world(again)["entries"] == export_world(world)["entries"]


def test_the_creators_case_setting_in_fabula_goes_where_sillytavern_reads_it():
    world = card_to_world(ST_CARD)
    next(e for e in world.entries if e.name == "Atlas").case_sensitive = False
    native = load_world(WORLD)
    native.entries[1].case_sensitive = True

    changed = entry_named(world_to_card(world, "v2"), "Atlas")
    own = entry_named(world_to_card(native, "v2"), "Atlas")

    assert (changed["case_sensitive"], changed["extensions"]["case_sensitive"]) == (False, False)
    assert (own["case_sensitive"], own["extensions"]["case_sensitive"]) == (True, True)


def test_condition_gated_entries_are_listed_for_the_export_report():
    assert [e.id for e in gated_entries(load_world(WORLD))] == ["wounded", "dark"]


def test_gated_entries_left_out_are_not_in_the_book_but_come_back_to_fabula():
    world = load_world(WORLD)

    card = world_to_card(world, "v2", gated="omit")

    assert [e["comment"] for e in book_of(card)["entries"]] == ["Atlas"]
    assert validate_v2(card)
    again, _warnings = import_file(world_to_card_png(world, "v2", gated="omit"), "h.png")
    assert export_world(again) == export_world(world)


def test_gated_entries_exported_disabled_are_switched_off_in_sillytavern():
    world = load_world(WORLD)

    card = world_to_card(world, "v3", gated="disable")

    enabled = {e["comment"]: e["enabled"] for e in book_of(card)["entries"]}
    assert enabled == {"Atlas": True, "Wounded": False, "Lantern gone dark": False}
    assert all(e.enabled for e in world.entries)  # the world itself is untouched


@requires_corpus
@pytest.mark.parametrize("name", ["default_Seraphina.png", "default_CodingSensei.png"])
def test_corpus_cards_exported_again_pass_validate_v2(name):
    path = corpus_dir() / name
    world, _warnings = import_file(path.read_bytes(), name)

    card = read_png_card(world_to_card_png(world, "v2"))

    assert validate_v2(card)
    if name == "default_Seraphina.png":
        original = read_png_card(path.read_bytes())["data"]["character_book"]
        assert book_of(card)["extensions"] == copy.deepcopy(original.get("extensions", {}))
