"""studio.gamemaster: the draft's gameMaster block, validated and linted whole on every write."""

from __future__ import annotations

import pytest

from engine.gm.lint import Problem
from engine.world import WorldValidationError, export_world, load_world
from studio.gamemaster import (
    RecordNotFound,
    delete_record,
    disable_game_master,
    enable_game_master,
    fresh_id,
    game_master_data,
    game_master_problems,
    introduced,
    save_game_master,
    save_record,
    save_singles,
)
from studio.models import Variable, World
from studio.worlds import export_world_json, import_world
from tests.factories import world_data
from tests.studio.gm_helpers import demo_data, small_block

pytestmark = pytest.mark.django_db


@pytest.fixture
def gm_world(alice):
    return import_world(alice, world_data(gameMaster=small_block()))


def stored(world: World) -> dict:
    return game_master_data(World.objects.get(pk=world.pk)) or {}


def test_the_demo_world_round_trips_through_import_and_export(alice):
    data = demo_data()
    world = import_world(alice, data)
    assert export_world_json(world) == export_world(load_world(data))


def test_enabling_is_idempotent_and_disabling_leaves_a_plain_world(world):
    first = enable_game_master(world)
    save_record(world, "locations", None, {"name": "Hall"})
    assert enable_game_master(world)["locations"][0]["id"] == "hall"
    assert first["locations"] == []
    disable_game_master(world)
    assert "gameMaster" not in export_world_json(World.objects.get(pk=world.pk))


def test_a_new_record_gets_an_unused_id_from_its_name(gm_world):
    record = save_record(gm_world, "locations", None, {"name": "The Hall"})
    assert record["id"] == "the-hall"
    again = save_record(gm_world, "locations", None, {"name": "The Hall"})
    assert again["id"] == "the-hall-2"
    assert [x["id"] for x in stored(gm_world)["locations"]] == [
        "hall",
        "yard",
        "the-hall",
        "the-hall-2",
    ]


def test_fresh_ids_are_kebab_case_with_a_fallback():
    assert fresh_id([], "Père Éloi's Mill!") == "pere-elois-mill"
    assert fresh_id([{"id": "record"}], "") == "record-2"
    assert fresh_id([], "酒馆", "location") == "location"


def test_an_edit_keeps_the_keys_its_form_does_not_manage(gm_world):
    block = small_block()
    block["npcs"][0]["memories"] = [{"about": "tom", "text": "He paid."}]
    block["npcs"][0]["custom"] = {"kept": True}
    save_game_master(gm_world, block)
    saved = save_record(gm_world, "npcs", "mara", {"trade": "baker"})
    assert saved["trade"] == "baker"
    assert saved["memories"] == [{"about": "tom", "text": "He paid.", "importance": 1, "day": 1}]
    assert saved["custom"] == {"kept": True}


def test_a_save_that_breaks_a_reference_is_refused_and_nothing_changes(gm_world):
    with pytest.raises(WorldValidationError) as refused:
        save_record(gm_world, "items", "ladle", {"at": {"npc": "ghost"}})
    assert refused.value.errors == ["gameMaster.items[0].at.npc: unknown NPC 'ghost'"]
    assert stored(gm_world)["items"][0]["at"]["npc"] == "mara"


def test_a_bad_value_is_refused_with_the_path_from_the_worlds_root(gm_world):
    with pytest.raises(WorldValidationError) as refused:
        save_record(gm_world, "characters", "tom", {"hp": -1})
    assert refused.value.errors == [
        "gameMaster.characters[0].hp: input should be greater than or equal to 0"
    ]


def test_deleting_a_record_others_name_is_refused_with_every_path(gm_world):
    with pytest.raises(WorldValidationError) as refused:
        delete_record(gm_world, "npcs", "mara")
    assert refused.value.errors == ["gameMaster.items[0].at.npc: unknown NPC 'mara'"]
    delete_record(gm_world, "items", "ladle")
    delete_record(gm_world, "npcs", "mara")
    assert stored(gm_world)["npcs"] == []


def test_an_unknown_record_is_not_found(gm_world):
    with pytest.raises(RecordNotFound):
        save_record(gm_world, "locations", "moon", {"name": "Moon"})


def test_a_problem_already_there_does_not_block_other_edits(alice):
    block = small_block()
    need = {"type": "condition", "variableId": "health", "operator": "gt", "value": 1}
    block["clues"] = [{"id": "c", "name": "C", "anchor": {"npc": "mara"}, "requires": [need]}]
    world = import_world(alice, world_data(gameMaster=block))
    Variable.objects.filter(world=world, key="health").delete()
    assert game_master_problems(world) == [
        Problem("gameMaster.clues[0].requires[0].variableId", "unknown variable 'health'")
    ]
    save_record(world, "locations", "hall", {"description": "Rushes."})
    assert stored(world)["locations"][0]["description"] == "Rushes."


def test_problems_are_compared_by_message_not_by_shifting_path():
    before = [Problem("gameMaster.clues[3].anchor.npc", "unknown NPC 'x'")]
    after = [
        Problem("gameMaster.clues[2].anchor.npc", "unknown NPC 'x'"),
        Problem("gameMaster.clues[2].anchor.npc", "unknown NPC 'x'"),
    ]
    assert introduced(before, after) == [after[1]]


def test_singles_are_merged_and_unknown_keys_refused(gm_world):
    save_singles(gm_world, {"settings": {"toolCap": 3}, "clock": {"timeOfDay": "night"}})
    block = stored(gm_world)
    assert (block["settings"]["toolCap"], block["settings"]["dailyQuota"]) == (3, 200)
    assert block["clock"] == {"day": 1, "timeOfDay": "night"}
    with pytest.raises(WorldValidationError) as refused:
        save_singles(gm_world, {"locations": []})
    assert refused.value.errors == ["gameMaster.locations: unknown field"]


def test_records_cannot_be_saved_before_the_block_exists(world):
    with pytest.raises(WorldValidationError) as refused:
        save_record(world, "locations", None, {"name": "Hall"})
    assert refused.value.errors == ["gameMaster: this world has no game master; enable it first"]


def test_the_whole_block_must_be_an_object(gm_world):
    with pytest.raises(WorldValidationError) as refused:
        save_game_master(gm_world, [])
    assert refused.value.errors == ["gameMaster: must be a JSON object, got array"]
