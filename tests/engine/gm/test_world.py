"""engine.gm.world: the gameMaster block, its JSON form and its JSON Schema."""

from __future__ import annotations

import json

import pytest

from engine.gm.world import GameMaster, Holder, game_master_json_schema
from engine.world import WorldValidationError, export_world, load_world, validate_part
from tests.engine.gm.worlds import ROOT, demo_data, tiny_gm, tiny_world

SCHEMA_PATH = ROOT / "docs" / "game-master.schema.json"


def test_a_plain_world_round_trips_without_a_game_master_key():
    data = {"name": "Plain", "entries": [{"id": "a", "content": "x"}]}
    exported = export_world(load_world(data))
    assert "gameMaster" not in exported
    assert export_world(load_world(exported)) == exported


def test_a_game_master_world_round_trips_unchanged():
    exported = export_world(load_world(demo_data()))
    again = export_world(load_world(json.loads(json.dumps(exported))))
    assert again == exported
    assert exported["gameMaster"]["locations"][0]["hiddenPoints"][0]["foundBy"] == {
        "check": "investigation",
        "dc": 14,
    }


def test_json_keys_are_camel_case_and_attributes_snake_case():
    world = tiny_world()
    gm = world.game_master
    assert gm is not None
    assert gm.locations[0].hidden_points[0].found_by.dc == 10
    exported = export_world(world)["gameMaster"]
    assert "hiddenPoints" in exported["locations"][0]
    assert exported["characters"][0]["full"]["class"] == "fighter"
    assert exported["characters"][0]["maxHp"] == 10


def test_unknown_keys_inside_the_block_are_kept_and_reported():
    gm = tiny_gm()
    gm["locations"][0]["smell"] = "smoke"
    world = load_world({"name": "T", "gameMaster": gm})
    assert export_world(world)["gameMaster"]["locations"][0]["smell"] == "smoke"
    assert "gameMaster.locations[0].smell: unknown field kept" in world.warnings


def test_bad_values_are_reported_with_their_paths():
    gm = tiny_gm()
    gm["locations"][0]["exits"][0]["direction"] = "sideways"
    gm["items"][4]["damage"] = "lots"
    gm["npcs"][0]["startTrust"] = "besties"
    with pytest.raises(WorldValidationError) as caught:
        load_world({"name": "T", "gameMaster": gm})
    errors = "\n".join(caught.value.errors)
    assert "gameMaster.locations[0].exits[0].direction: must be one of north" in errors
    assert "gameMaster.items[4].damage: 'lots' is not dice notation" in errors
    assert "gameMaster.npcs[0].startTrust: must be one of hostile, wary, stranger" in errors


def test_an_item_held_by_two_holders_at_once_is_refused():
    gm = tiny_gm()
    gm["items"][0]["at"] = {"location": "hall", "npc": "guard"}
    with pytest.raises(WorldValidationError) as caught:
        load_world({"name": "T", "gameMaster": gm})
    assert caught.value.errors == [
        "gameMaster.items[0].at: must name exactly one of location, npc or character"
    ]


def test_a_clue_anchored_to_nothing_is_refused():
    gm = tiny_gm()
    gm["clues"] = [{"id": "c", "name": "C", "anchor": {}}]
    with pytest.raises(WorldValidationError) as caught:
        load_world({"name": "T", "gameMaster": gm})
    assert caught.value.errors == [
        "gameMaster.clues[0].anchor: must name exactly one of location or npc"
    ]


def test_ids_must_be_kebab_case():
    gm = tiny_gm()
    gm["locations"][1]["id"] = "Stable Yard"
    with pytest.raises(WorldValidationError) as caught:
        load_world({"name": "T", "gameMaster": gm})
    assert caught.value.errors[0].startswith("gameMaster.locations[1].id: must be kebab-case")


def test_validate_part_checks_the_block_alone_for_the_studio():
    block = validate_part(GameMaster, {"clock": {"day": 2, "timeOfDay": "night"}})
    assert block.clock.time_of_day == "night"
    with pytest.raises(WorldValidationError) as caught:
        validate_part(GameMaster, {"clock": {"day": 0}})
    assert caught.value.errors == ["clock.day: input should be greater than or equal to 1"]


def test_holder_key_names_its_kind():
    assert Holder(npc="guard").key == ("npc", "guard")
    assert Holder(location="hall", point="table").key == ("location", "hall")


def test_the_committed_json_schema_is_the_generated_one():
    committed = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert committed == game_master_json_schema(), (
        "regenerate docs/game-master.schema.json from engine.gm.world.game_master_json_schema()"
    )


def test_the_demo_world_is_valid_and_has_what_the_issue_asks_for():
    world = load_world(demo_data())
    gm = world.game_master
    assert gm is not None
    assert {"the-wayfarer", "square", "east-road"} <= set(gm.locations_by_id)
    assert len(gm.npcs) == 6 and all(n.secret for n in gm.npcs)
    assert gm.clues and len(gm.boards[0].notices) == 3
    assert len(gm.shops) == 2 and len(gm.debts) == 1  # the store, and the inn's bar (issue 33)
    assert world.language == "en"
