"""The tools and words a master turn is offered (issue 37 §4, engine.gm.tools.offer)."""

from __future__ import annotations

import json

import pytest

from engine.gm.brief import MASTER_OUTPUT_TOKENS, brief, master_settings
from engine.gm.scene import Scene
from engine.gm.tools import TOOLS, ToolCall, execute, tool_schemas
from engine.gm.tools.offer import COMBAT, TRADE, compact, offered_schemas, offered_tools
from engine.tokens import estimate_tokens
from tests.engine.gm.worlds import demo_world, new_state, scene_for

TRADING = {"buy_item", "sell_item"}


def demo_scene(character: str = "ada", language: str = "en") -> Scene:
    world = demo_world()
    return scene_for(world, new_state(world), character, language)


def test_trade_tools_are_offered_only_where_a_shopkeeper_is_present():
    at_the_inn = offered_tools(demo_scene("ren"), "I look around")  # Hilda keeps the bar
    in_the_square = offered_tools(demo_scene("ada"), "I look around")

    assert at_the_inn >= TRADE
    assert not TRADING & in_the_square


def test_combat_tools_come_with_an_attack_or_a_hostile_not_with_a_song():
    scene = demo_scene("ada")
    assert not COMBAT & offered_tools(scene, "I hum an old song")
    assert offered_tools(scene, "I attack Greta") >= COMBAT

    for npc in scene.npcs():
        scene.state.trust.setdefault(npc.id, {})["ada"] = -1000
    assert offered_tools(scene, "I hum an old song") >= COMBAT


def test_a_wounded_character_is_offered_healing_without_the_attack_tools():
    scene = demo_scene("ada")
    scene.me.hp = max(0, scene.me.max_hp - 3)

    offered = offered_tools(scene, "I rest a moment")

    assert {"heal", "stabilise"} <= offered and "request_attack" not in offered


def test_alone_in_an_empty_place_no_people_tools_are_offered():
    scene = demo_scene("ada")
    scene.me.location = next(place.id for place in scene.gm.locations if not scene.npcs(place.id))

    offered = offered_tools(scene, "I look around")

    assert not {"adjust_trust", "offer_quest", "reveal_secret"} & offered
    assert {"log_event", "lookup_rule", "move_character"} <= offered


def test_compact_schemas_drop_validation_keywords_and_keep_the_first_sentence():
    full = tool_schemas(["request_skill_check"])[0]
    small = compact(full)
    text = json.dumps(small)

    assert "maxLength" not in text and "minimum" not in text
    assert small["parameters"]["required"] == full["parameters"]["required"]
    assert small["description"] == full["description"].split(". ")[0] + "."
    assert "claims" not in compact(tool_schemas(["log_event"])[0])["parameters"]["properties"]


def test_the_engine_still_checks_the_full_schema_the_compact_one_left_out():
    scene = demo_scene("ada")
    long = "x" * (TOOLS["log_event"].parameters["properties"]["narration"]["maxLength"] + 1)

    outcome = execute(ToolCall("c1", "log_event", {"narration": long}), scene)

    assert not outcome.ok and outcome.result["code"] == "invalid-arguments"


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_the_fixed_part_is_a_third_smaller_than_it_was_in_every_language(language):
    scene = demo_scene("ada", language)
    words = brief(language)
    before = words.fixed(8, sheet=True) + json.dumps(tool_schemas(), ensure_ascii=False)
    after = words.fixed(8) + json.dumps(offered_schemas(scene, "I hum"), ensure_ascii=False)

    assert "lookup_rule" in words.fixed(8)
    assert all(line not in words.fixed(8) for line in words.data["sheet"])
    assert estimate_tokens(after) < estimate_tokens(before) * 2 / 3


def test_the_offered_list_is_the_same_bytes_for_the_same_situation():
    first = json.dumps(offered_schemas(demo_scene("ada"), "I hum"))
    again = json.dumps(offered_schemas(demo_scene("ada"), "I hum"))

    assert first == again


def test_a_master_call_asks_for_a_narration_sized_output_not_the_worlds_max_tokens():
    from tests.engine.gm.test_loop import close, scripted
    from tests.engine.gm.worlds import play

    world = demo_world()
    assert world.settings.max_tokens > MASTER_OUTPUT_TOKENS
    provider = scripted({"tool_calls": [close()]})

    play(world, new_state(world), "I hum an old song", "ada", provider=provider)

    assert [r.max_tokens for r in provider.requests] == [MASTER_OUTPUT_TOKENS]


def test_a_world_asking_for_less_keeps_its_own_cap():
    small = demo_world().settings.model_copy(update={"max_tokens": 300})

    assert master_settings(small).max_tokens == 300
