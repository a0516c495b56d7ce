"""engine.gm.tools: the registry, its byte-stable schemas, argument validation and the rule that a
failing tool changes nothing."""

from __future__ import annotations

import json

import pytest

from engine.gm.tools import LOG_EVENT, TOOLS, ToolCall, execute, tool_schemas
from engine.gm.world import Holder
from tests.engine.gm.toolkit import call, demo_scene, snapshot, world_with
from tests.engine.gm.worlds import new_state, scene_for

SEED_NAMED = ["get_campaign_notes", "lookup_rule", "grant_clue", "set_debt", "settle_debt",
              "pawn_item", "log_event", "offer_quest", "reveal_secret"]  # fmt: skip


def test_there_are_twenty_nine_tools_with_the_names_the_seed_gives():
    assert len(TOOLS) == 29
    assert set(SEED_NAMED) <= set(TOOLS)
    assert all(name.islower() and " " not in name for name in TOOLS)


def test_the_schemas_are_provider_neutral_sorted_and_byte_stable():
    first, second = tool_schemas(), tool_schemas()
    assert json.dumps(first) == json.dumps(second)
    assert [s["name"] for s in first] == sorted(TOOLS)
    for schema in first:
        assert list(schema) == ["description", "name", "parameters"]
        assert schema["parameters"]["type"] == "object"
        assert schema["description"]


def test_a_changed_schema_list_is_not_the_callers_to_keep():
    schemas = tool_schemas()
    schemas[0]["name"] = "mangled"
    assert tool_schemas()[0]["name"] != "mangled"


def test_the_closure_only_call_offers_log_event_alone():
    assert [s["name"] for s in tool_schemas([LOG_EVENT])] == ["log_event"]


def test_an_unknown_tool_is_refused_with_the_tools_there_are():
    scene = demo_scene()
    outcome = call(scene, "teleport", to="moon")
    assert not outcome.ok
    assert outcome.error.startswith("There is no tool 'teleport'. Tools: adjust_trust, buy_item")
    assert outcome.result == {"code": "unknown-tool"}


def test_arguments_the_provider_could_not_read_are_not_run():
    scene = demo_scene()
    outcome = execute(ToolCall("t1", "rest", {}, error="the arguments are not valid JSON"), scene)
    assert not outcome.ok
    assert outcome.error == "rest could not read its arguments: the arguments are not valid JSON."


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("lookup_rule", {}, "'topic' is missing."),
        ("lookup_rule", {"topic": "flying"}, "'topic' must be one of: ability-checks, advantage"),
        ("request_skill_check", {"check": "stealth", "dc": 17}, "'dc' must be one of: 5, 10, 15"),
        ("request_skill_check", {"check": 3}, "'check' must be a text."),
        ("spend_resource", {"resource": "arrows", "amount": 99}, "'amount' must be between 1"),
        ("rest", {"kind": "long", "extra": 1}, None),
        ("log_event", {"narration": "  "}, "'narration' is empty."),
        ("log_event", {"narration": "x", "suggestions": ["a"] * 9}, "'suggestions' must hold 0"),
        (
            "log_event",
            {"narration": "x", "memories": [{"npc": "hilda", "text": "t", "importance": 4}]},
            "'memories[0].importance' must be between 1 and 3.",
        ),
        ("set_debt", {"debtor": "me", "creditor": "hilda", "amount": True}, "whole number"),
    ],
)
def test_arguments_are_checked_against_the_schema(name, arguments, error):
    outcome = call(demo_scene(), name, **arguments)
    if error is None:  # unknown arguments are ignored, like every parser of the engine
        assert outcome.ok, outcome.error
        return
    assert not outcome.ok and outcome.result == {"code": "invalid-arguments"}
    assert error in outcome.error


def test_schema_errors_speak_the_turns_language():
    outcome = call(demo_scene(language="es"), "lookup_rule")
    assert outcome.error == "Falta 'topic'."
    outcome = call(demo_scene(language="zh"), "lookup_rule")
    assert outcome.error == "缺少“topic”。"


FAILING = [
    ("transfer_item", {"item": "moon", "to": "me"}),
    ("transfer_item", {"item": "lantern", "to": "me"}),
    ("buy_item", {"item": "lantern"}),
    ("sell_item", {"item": "rope"}),
    ("damage", {"target": "hilda"}),
    ("heal", {"target": "hilda", "dice": "1d4"}),
    ("rest", {"kind": "long"}),  # after a long rest today (set up below)
    ("grant_clue", {"clue": "Cheap silver in Dunmere"}),
    ("reveal_secret", {"npc": "hilda"}),
    ("offer_quest", {"npc": "hilda", "quest": "clear-road"}),
    ("move_character", {"to": "down"}),
    ("move_character", {"who": "ada", "to": "north"}),
    ("settle_debt", {"with": "hilda"}),
    ("pawn_item", {"item": "rope", "to": "hilda"}),
    ("cancel_hook", {"hook": "nope"}),
    ("log_event", {"narration": "Ada nods.", "actor": "ada"}),
    ("log_event", {"narration": "ok", "memories": [{"npc": "x", "text": "t", "importance": 1}]}),
]


@pytest.mark.parametrize(("name", "arguments"), FAILING)
def test_a_failing_tool_changes_nothing(name, arguments):
    scene = demo_scene()
    scene.me.long_rest_day = scene.state.clock.day
    before = snapshot(scene)
    outcome = call(scene, name, **arguments)
    assert not outcome.ok and outcome.error
    assert outcome.events == [] and outcome.rolls == [] and outcome.changes == {}
    assert snapshot(scene) == before  # the dice counter included


def test_a_tool_that_succeeds_applies_its_change_to_the_scenes_own_state():
    scene = demo_scene()
    state = scene.state
    outcome = call(scene, "transfer_item", item="rope", to="me")
    assert outcome.ok
    assert scene.state is state
    assert state.items["rope"].character == "ren"
    assert [i.id for i in scene.carried()] == ["rope", "dagger"]


def test_a_tool_that_fails_after_rolling_does_not_spend_the_dice():
    scene = demo_scene()
    counter = scene.state.dice.counter
    assert not call(scene, "damage", target="moon", dice="1d6").ok
    assert scene.state.dice.counter == counter


def test_every_outcome_reads_back_as_json_for_the_model():
    scene = demo_scene()
    good = call(scene, "get_campaign_notes").to_dict()
    bad = call(scene, "reveal_secret", npc="hilda").to_dict()
    assert good["ok"] is True and "notes" in good
    assert bad == {"ok": False, "error": "Hilda Brant will not tell it yet.", "code": "gated"}
    json.dumps([good, bad])


def evening_scene():
    world = world_with(clock={"day": 1, "timeOfDay": "evening"})
    return scene_for(world, new_state(world), "ren")


def test_the_other_refusals_read_as_narratable_reasons():
    store = demo_scene()
    store.me.location = "store"
    store.state.items["bread"] = Holder(character="ada")
    assert call(store, "buy_item", item="bread").error == "Loaf of bread is no longer for sale."
    tavern = demo_scene()
    chapel = demo_scene()
    chapel.me.location = "chapel"  # the inn has a bar since issue 33: the chapel has no shop
    assert call(chapel, "sell_item", item="dagger").error == (
        "Say who buys it: there is no shop here."
    )
    assert call(tavern, "transfer_item", item="dagger", to="me").error == "Dagger is already there."
    tavern.state.items["walking-stick"] = Holder(character="ren")
    assert call(tavern, "pawn_item", item="walking stick", to="hilda").error == (
        "Walking stick is worth nothing to a pawnbroker."
    )
    assert call(tavern, "spend_resource", resource="arrows").error == "Ren Ashby has no arrows."
    evening = evening_scene()
    assert call(evening, "set_debt", debtor="greta", creditor="hilda", amount=2).error == (
        "Ren Ashby must be one of the parties."
    )
    assert call(evening, "request_attack", target="Brant").error == (
        "Which one: Hilda Brant, Greta Vell, the stable hand?"
    )
    cellar = demo_scene()
    cellar.me.location = "cellar"
    assert call(cellar, "request_attack", target="jory").error == (
        "Nobody called 'jory' is here; Ren Ashby is alone."
    )


def test_a_refusal_names_people_he_has_not_met_by_trade():
    square = demo_scene("ada")
    assert call(square, "request_attack", target="Jory").error == (
        "Nobody called 'Jory' is here. Here: the moneylender."
    )
