"""studio.worlds and studio.items: rows ⇄ WorldDefinition, import/export, per-item verbs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.interop import import_file
from engine.world import WorldValidationError, export_world, load_world
from studio.demo import DEMO_WORLD_PATH
from studio.models import Entry, EntryFolder, Rule, Variable, World
from studio.worlds import (
    create_item,
    create_world,
    delete_item,
    delete_root_file,
    duplicate_item,
    export_world_json,
    import_world,
    move_item,
    rename_root_file,
    replace_world_content,
    save_root_file,
    set_bgm_playlist,
    update_item,
    update_root_component,
    update_settings,
    update_world,
    world_to_definition,
)
from tests.factories import full_world_data, world_data
from tests.support.corpus import FIXTURES_DIR, corpus_dir, requires_corpus

SECTIONS = "system-presets, examples, chat-history, post-history"


def corpus_files() -> list[Path]:
    folder = corpus_dir()
    return sorted(p for p in folder.glob("*") if p.suffix in (".json", ".png"))


def expected_export(source: Any) -> dict[str, Any]:
    return export_world(load_world(source) if isinstance(source, dict) else source)


# --- round trips -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [world_data(), full_world_data(), world_data(reactions=None), load_world(DEMO_WORLD_PATH)],
    ids=["small", "everything", "null-reactions", "demo"],
)
def test_export_of_import_equals_engine_export(alice, data):
    world = import_world(alice, data)
    assert export_world_json(world) == expected_export(data)


def test_round_trip_keeps_unknown_fields_at_every_level(alice):
    exported = export_world_json(import_world(alice, full_world_data()))
    assert exported["futureTopLevel"] == {"kept": True}
    assert exported["entries"][1]["futureEntryField"] == [1, 2]
    assert exported["rootComponent"]["theme"] == "dark"
    assert exported["components"][0]["color"] == "red"
    assert exported["bgmPlaylist"]["x-mode"] == 1
    assert exported["settings"]["vendorKnob"] == 3
    assert "language" not in exported
    assert "category" not in exported["variables"][1]


@requires_corpus
def test_corpus_is_found():
    assert len(corpus_files()) == 5, corpus_dir()


@pytest.mark.parametrize(
    "path",
    corpus_files() + sorted(FIXTURES_DIR.glob("*.[jp][sn][og]*")),
    ids=lambda p: p.name,
)
def test_sillytavern_corpus_round_trips(alice, path):
    definition, _warnings = import_file(path.read_bytes(), path.name)
    world = import_world(alice, definition)
    expected = expected_export(definition)
    if not definition.id:
        expected["id"] = world.uid
    assert export_world_json(world) == expected


def test_import_gives_an_id_when_the_source_has_none(alice):
    world = import_world(alice, world_data(id=""))
    assert len(world.uid) == 36
    assert export_world_json(world)["id"] == world.uid


def test_import_of_invalid_world_lists_paths_and_creates_nothing(alice):
    data = world_data()
    data["entries"][0]["section"] = "nowhere"
    data["variables"].append({"id": "health", "type": "number"})
    with pytest.raises(WorldValidationError) as caught:
        import_world(alice, data)
    assert caught.value.errors == [
        "variables[1].id: duplicate id 'health' (first used at variables[0])",
        f"entries[0].section: must be one of {SECTIONS}",
    ]
    assert World.objects.count() == 0
    assert Entry.objects.count() == 0


def test_world_to_definition_orders_items_by_position(world):
    create_item(world, Entry, {"id": "second"})
    first = create_item(world, Entry, {"id": "first"})
    move_item(Entry, first, 0)
    assert [e.id for e in world_to_definition(world).entries] == ["first", "narrator", "second"]


def test_replace_world_content_swaps_everything_but_identity(world):
    uid = world.uid
    replace_world_content(world, full_world_data())
    world.refresh_from_db()
    exported = export_world_json(world)
    expected = expected_export(full_world_data())
    assert world.uid == uid
    assert exported == {**expected, "id": uid}


def test_import_query_count_does_not_grow_with_items(alice, django_assert_max_num_queries):
    data = world_data(entries=[{"id": f"e-{i}"} for i in range(40)])
    with django_assert_max_num_queries(16):
        import_world(alice, data)


def test_export_query_count_is_fixed(world, django_assert_num_queries):
    for i in range(5):
        create_item(world, Entry, {"id": f"extra-{i}"})
    world = World.objects.get(pk=world.pk)
    # One query per list, the playlist; the custom UI's files only when it has one.
    with django_assert_num_queries(9):
        export_world_json(world)


# --- header and settings ------------------------------------------------------------------


def test_create_world_needs_a_name(alice):
    with pytest.raises(WorldValidationError) as caught:
        create_world(alice, {"name": ""})
    assert caught.value.errors == ["name: string should have at least 1 character"]


def test_create_world_makes_an_empty_draft(alice):
    world = create_world(alice, {"name": "Fen", "language": "es"})
    assert world.owner == alice
    assert export_world_json(world)["entries"] == []
    assert world.language == "es"


def test_update_world_changes_header_fields(world):
    update_world(world, {"description": "New", "editorMode": "simple", "customTags": ["a"]})
    world.refresh_from_db()
    assert (world.description, world.editor_mode, world.custom_tags) == ("New", "simple", ["a"])


def test_update_world_rejects_unknown_and_bad_fields(world):
    with pytest.raises(WorldValidationError) as caught:
        update_world(world, {"entries": [], "editorMode": "expert"})
    assert caught.value.errors == ["entries: unknown field"]
    with pytest.raises(WorldValidationError) as caught:
        update_world(world, {"editorMode": "expert"})
    assert caught.value.errors == ["editorMode: must be one of simple, advanced"]


def test_update_settings_validates_ranges(world):
    update_settings(world, {"temperature": 0.5, "topK": 20})
    assert world.settings["temperature"] == 0.5
    assert world.settings["topK"] == 20
    with pytest.raises(WorldValidationError) as caught:
        update_settings(world, {"temperature": 3})
    assert caught.value.errors == ["temperature: input should be less than or equal to 2"]


# --- items ----------------------------------------------------------------------------------


def test_create_item_validates_through_the_engine_model(world):
    with pytest.raises(WorldValidationError) as caught:
        create_item(world, Entry, {"id": "x", "section": "sideways", "depth": -1})
    assert caught.value.errors == [
        f"section: must be one of {SECTIONS}",
        "depth: input should be greater than or equal to 0",
    ]
    assert world.entries.count() == 1


def test_create_item_refuses_a_duplicate_id(world):
    with pytest.raises(WorldValidationError) as caught:
        create_item(world, Variable, {"id": "health", "type": "number"})
    assert caught.value.errors == ["id: duplicate id 'health' (another variable uses it)"]


def test_create_item_refuses_reserved_variable_ids(world):
    with pytest.raises(WorldValidationError) as caught:
        create_item(world, Variable, {"id": "user", "type": "string"})
    assert caught.value.errors == ["id: 'user' is a reserved word (audio, char, date, time, user)"]


def test_create_item_makes_an_id_from_the_name(world):
    entry = create_item(world, Entry, {"name": "The Old Well!"})
    again = create_item(world, Entry, {"name": "The Old Well"})
    assert (entry.key, again.key) == ("the-old-well", "the-old-well-2")
    assert (entry.position, again.position) == (1, 2)


def test_rule_trigger_errors_name_the_field(world):
    with pytest.raises(WorldValidationError) as caught:
        create_item(world, Rule, {"id": "r", "trigger": {"type": "variable-crossed"}})
    assert caught.value.errors == [
        "trigger.variableId: is required",
        "trigger.direction: is required",
        "trigger.threshold: is required",
    ]


def test_update_item_merges_and_validates(world):
    entry = world.entries.get()
    update_item(entry, {"keywords": ["salt"], "section": "chat-history"})
    entry.refresh_from_db()
    assert entry.keywords == ["salt"]
    assert entry.content.startswith("You narrate")
    with pytest.raises(WorldValidationError):
        update_item(entry, {"apiRole": "narrator"})
    entry.refresh_from_db()
    assert entry.api_role == "system"


def test_full_update_resets_missing_fields(world):
    entry = world.entries.get()
    update_item(entry, {"name": "Bare"}, partial=False)
    entry.refresh_from_db()
    assert (entry.key, entry.name, entry.content) == ("narrator", "Bare", "")


def test_update_item_refuses_renaming_onto_another_id(world):
    other = create_item(world, Entry, {"id": "other"})
    with pytest.raises(WorldValidationError) as caught:
        update_item(other, {"id": "narrator"})
    assert caught.value.errors == ["id: duplicate id 'narrator' (another entry uses it)"]


def test_duplicate_item_inserts_a_copy_after_the_original(world):
    first = world.entries.get()
    create_item(world, Entry, {"id": "last"})
    copy = duplicate_item(first)
    assert copy.key == "narrator-copy"
    assert list(world.entries.values_list("key", flat=True)) == [
        "narrator",
        "narrator-copy",
        "last",
    ]
    assert copy.content == first.content


def test_move_item_clamps_and_renumbers(world):
    for key in ("b", "c"):
        create_item(world, Entry, {"id": key})
    narrator = world.entries.get(key="narrator")
    move_item(Entry, narrator, 99)
    rows = list(world.entries.values_list("key", "position"))
    assert rows == [("b", 0), ("c", 1), ("narrator", 2)]


def test_deleting_a_folder_moves_its_contents_to_the_top(world):
    lore = create_item(world, EntryFolder, {"id": "lore"})
    create_item(world, EntryFolder, {"id": "inner", "parentId": "lore"})
    update_item(world.entries.get(), {"folderId": "lore"})
    delete_item(lore)
    assert world.entries.get().folder_id is None
    assert world.folders.get().parent_id is None


def test_renaming_a_folder_follows_its_entries(world):
    lore = create_item(world, EntryFolder, {"id": "lore"})
    update_item(world.entries.get(), {"folderId": "lore"})
    update_item(lore, {"id": "legends"})
    assert world.entries.get().folder_id == "legends"


# --- single objects: playlist and custom UI -------------------------------------------------


def test_bgm_playlist_is_set_validated_and_removed(world):
    set_bgm_playlist(world, {"tracks": ["a"], "playMode": "shuffle"})
    assert export_world_json(world)["bgmPlaylist"]["playMode"] == "shuffle"
    with pytest.raises(WorldValidationError) as caught:
        set_bgm_playlist(world, {"gapSeconds": 31})
    assert caught.value.errors == ["gapSeconds: input should be less than or equal to 30"]
    set_bgm_playlist(world, None)
    assert export_world_json(world)["bgmPlaylist"] is None


def test_root_files_make_up_the_custom_ui(world):
    save_root_file(world, "index.tsx", "export default () => <Chat />;")
    hud = save_root_file(world, "hud.tsx", "// v1")
    save_root_file(world, "hud.tsx", "// v2")
    root = export_world_json(world)["rootComponent"]
    assert root["entryFile"] == "index.tsx"
    assert root["files"] == {"index.tsx": "export default () => <Chat />;", "hud.tsx": "// v2"}
    rename_root_file(hud, "ui/hud.tsx")
    assert set(export_world_json(world)["rootComponent"]["files"]) == {"index.tsx", "ui/hud.tsx"}


def test_root_file_paths_must_be_relative(world):
    with pytest.raises(WorldValidationError) as caught:
        save_root_file(world, "../etc/passwd", "")
    assert caught.value.errors == ["path: '../etc/passwd' is not a relative file path"]


def test_the_entry_file_cannot_be_deleted_while_others_remain(world):
    index = save_root_file(world, "index.tsx", "")
    save_root_file(world, "b.tsx", "")
    with pytest.raises(WorldValidationError) as caught:
        delete_root_file(index)
    assert caught.value.errors == [
        "entryFile: 'index.tsx' is the entry file; choose another entry file first"
    ]


def test_root_component_entry_file_must_exist(world):
    save_root_file(world, "index.tsx", "")
    with pytest.raises(WorldValidationError) as caught:
        update_root_component(world, {"entryFile": "main.tsx"})
    assert caught.value.errors == ["$: entryFile 'main.tsx' is not among files"]
    update_root_component(world, None)
    assert export_world_json(world)["rootComponent"] is None
