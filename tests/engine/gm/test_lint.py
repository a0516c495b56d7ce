"""engine.gm.lint: the cross references of the gameMaster block, refused by load_world."""

from __future__ import annotations

from typing import Any

import pytest

from engine.gm.lint import Problem, lint_game_master
from engine.gm.world import GameMaster
from engine.world import WorldValidationError, load_world
from tests.engine.gm.worlds import demo_world, tiny_gm


def problems(gm: dict[str, Any], variables: list[str] | None = None) -> list[str]:
    return [str(p) for p in lint_game_master(GameMaster.model_validate(gm), variables)]


def test_the_demo_and_the_tiny_world_have_no_problems():
    gm = demo_world().game_master
    assert gm is not None
    assert lint_game_master(gm) == []
    assert problems(tiny_gm()) == []


def test_an_exit_to_a_missing_location():
    gm = tiny_gm()
    gm["locations"][1]["exits"].append({"direction": "west", "to": "moon"})
    assert problems(gm) == ["gameMaster.locations[1].exits[1].to: unknown location 'moon'"]


def test_problems_carry_a_path_and_a_message():
    gm = tiny_gm()
    gm["locations"][0]["exits"][0]["to"] = "nowhere"
    found = lint_game_master(GameMaster.model_validate(gm))
    assert found == [Problem("gameMaster.locations[0].exits[0].to", "unknown location 'nowhere'")]


def test_an_item_declared_twice_is_in_two_places():
    gm = tiny_gm()
    gm["items"].append({"id": "rope", "name": "rope", "at": {"location": "yard"}})
    assert problems(gm) == [
        "gameMaster.items[6]: duplicate id 'rope' (first at gameMaster.items[0])"
        " (an item is in one place only)"
    ]


def test_a_pawned_item_held_by_someone_else_is_in_two_places():
    gm = tiny_gm()
    gm["pawns"] = [{"item": "rope", "owner": "kai", "heldBy": "guard"}]
    assert problems(gm) == [
        "gameMaster.pawns[0].item: 'rope' is in two places (also at gameMaster.items[0].at)"
    ]


def test_a_shop_selling_what_lies_elsewhere_is_in_two_places():
    gm = tiny_gm()
    gm["shops"] = [
        {"id": "s", "npc": "guard", "location": "hall", "stock": [{"item": "rope", "price": 1}]}
    ]
    assert problems(gm) == [
        "gameMaster.shops[0].stock[0].item: 'rope' is in two places: sold here, held elsewhere"
    ]


def test_prices_wants_hand_ins_and_rewards_name_what_exists():
    gm = tiny_gm()
    gm["prices"] = {"items": {"moon": 3}}
    gm["shops"] = [{"id": "s", "npc": "guard", "location": "hall", "buys": [{"item": "sun"}]}]
    gm["quests"] = [
        {"id": "q", "title": "Q", "handIn": {"item": "cup"}, "reward": {"items": ["star"]}}
    ]
    assert problems(gm) == [
        "gameMaster.quests[0].handIn.item: unknown item 'cup'",
        "gameMaster.quests[0].handIn.to: a hand-in needs an NPC: give it to or an owner",
        "gameMaster.quests[0].reward.items[0]: unknown item 'star'",
        "gameMaster.prices.items.moon: unknown item 'moon'",
        "gameMaster.shops[0].buys[0].item: unknown item 'sun'",
    ]


def test_items_at_missing_holders_and_points():
    gm = tiny_gm()
    gm["items"][0]["at"] = {"location": "hall", "point": "chandelier"}
    gm["items"][1]["at"] = {"npc": "ghost"}
    gm["items"][2]["at"] = {"character": "nobody"}
    assert problems(gm) == [
        "gameMaster.items[0].at.point: no point 'chandelier' in 'hall'",
        "gameMaster.items[1].at.npc: unknown NPC 'ghost'",
        "gameMaster.items[2].at.character: unknown character 'nobody'",
    ]


def test_clues_anchored_to_missing_things_or_requiring_them():
    gm = tiny_gm()
    gm["clues"] = [
        {"id": "a", "name": "A", "anchor": {"npc": "ghost"}},
        {
            "id": "b",
            "name": "B",
            "anchor": {"location": "hall"},
            "requires": [
                {"type": "trust", "npc": "ghost", "atLeast": "friend"},
                {"type": "item", "item": "moon"},
                {"type": "clue", "clue": "b"},
                {"type": "condition", "variableId": "mood", "operator": "eq", "value": 1},
            ],
        },
    ]
    assert problems(gm, ["health"]) == [
        "gameMaster.clues[0].anchor.npc: unknown NPC 'ghost'",
        "gameMaster.clues[1].requires[0].npc: unknown NPC 'ghost'",
        "gameMaster.clues[1].requires[1].item: unknown item 'moon'",
        "gameMaster.clues[1].requires[2].clue: a clue cannot require itself",
        "gameMaster.clues[1].requires[3].variableId: unknown variable 'mood'",
    ]


def test_npcs_at_missing_locations_or_nowhere():
    gm = tiny_gm()
    gm["npcs"][0]["location"] = "moon"
    gm["npcs"].append({"id": "ghost", "name": "Ghost"})
    gm["npcs"].append(
        {
            "id": "cook",
            "name": "Cook",
            "schedule": [
                {"timeOfDay": "morning", "location": "hall"},
                {"timeOfDay": "morning", "location": "yard"},
            ],
        }
    )
    assert problems(gm) == [
        "gameMaster.npcs[0].location: unknown location 'moon'",
        "gameMaster.npcs[1]: is nowhere: give it a location, home, fixedPlace or schedule",
        "gameMaster.npcs[2].schedule[1].timeOfDay: two places at morning",
    ]


def test_characters_errands_and_deals_refer_to_what_exists():
    gm = tiny_gm()
    gm["characters"][1]["location"] = "moon"
    gm["characters"][0]["inHand"] = "rope"
    gm["quests"] = [{"id": "q", "title": "Q", "owner": "ghost"}]
    gm["boards"] = [
        {"id": "b", "location": "hall", "notices": [{"id": "n", "title": "N", "quest": "zz"}]}
    ]
    gm["debts"] = [{"id": "d", "debtor": "kai", "creditor": "kai", "amount": 3}]
    assert problems(gm) == [
        "gameMaster.quests[0].owner: unknown NPC 'ghost'",
        "gameMaster.boards[0].notices[0].quest: unknown quest 'zz'",
        "gameMaster.debts[0].creditor: a debt needs two different parties",
        "gameMaster.characters[0].inHand: 'rope' is not carried by this character",
        "gameMaster.characters[1].location: unknown location 'moon'",
    ]


def test_load_world_refuses_a_world_with_problems_naming_each_path():
    gm = tiny_gm()
    gm["locations"][0]["exits"][0]["to"] = "nowhere"
    gm["npcs"][0]["home"] = "attic"
    with pytest.raises(WorldValidationError) as caught:
        load_world({"name": "T", "gameMaster": gm})
    assert caught.value.errors == [
        "gameMaster.locations[0].exits[0].to: unknown location 'nowhere'",
        "gameMaster.npcs[0].home: unknown location 'attic'",
    ]


def test_load_world_checks_clue_conditions_against_the_world_variables():
    gm = tiny_gm()
    gm["clues"] = [
        {
            "id": "c",
            "name": "C",
            "anchor": {"location": "hall"},
            "requires": [{"type": "condition", "variableId": "mood", "operator": "eq"}],
        }
    ]
    with pytest.raises(WorldValidationError) as caught:
        load_world({"name": "T", "gameMaster": gm})
    assert caught.value.errors == [
        "gameMaster.clues[0].requires[0].variableId: unknown variable 'mood'"
    ]
    world = load_world(
        {"name": "T", "variables": [{"id": "mood", "type": "string"}], "gameMaster": gm}
    )
    assert world.game_master is not None
