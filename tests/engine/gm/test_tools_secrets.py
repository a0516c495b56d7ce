"""Planted secrets (seed 001 "El máster conoce los secretos, pero no los desvela"; seed 003: the
narrating side gets no secret text; decision 11): no tool result, error or logged event ever
carries one, unless ``reveal_secret``'s gate passed, and then only that NPC's."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine.gm.tools import TOOLS
from engine.gm.trust import START_SCORES
from engine.world import load_world
from tests.engine.gm.toolkit import call, say
from tests.engine.gm.worlds import demo_data, new_state, scene_for

PLANTED = {
    "hilda": "PLANTED-HILDA-SECRET",
    "greta": "PLANTED-GRETA-SECRET",
    "jory": "PLANTED-JORY-SECRET",
}
ELSEWHERE = ["PLANTED-GM-NOTES", "PLANTED-PLAN", "PLANTED-STATE", "PLANTED-REN", "PLANTED-MOTIVE"]


def planted_world():
    data = copy.deepcopy(demo_data())
    gm = data["gameMaster"]
    gm["campaign"].update(
        gmNotes="PLANTED-GM-NOTES", sessionPlan="PLANTED-PLAN", state="PLANTED-STATE"
    )
    for npc in gm["npcs"]:
        npc["motivation"] = "PLANTED-MOTIVE"
        if npc["id"] in PLANTED:
            npc["secret"]["text"] = PLANTED[npc["id"]]
    gm["characters"][0]["full"]["secrets"] = ["PLANTED-REN"]
    gm["clock"] = {"day": 1, "timeOfDay": "evening"}  # Hilda, Greta and Jory in the tavern
    return load_world(data)


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_campaign_notes", {}),
    ("lookup_rule", {"topic": "social"}),
    ("request_skill_check", {"check": "insight", "dc": 15, "target": "hilda", "hidden": True}),
    ("request_skill_check", {"check": "persuasion", "target": "greta"}),
    ("request_attack", {"target": "jory"}),
    ("move_character", {"who": "jory", "to": "bar"}),
    ("move_character", {"to": "the cellar"}),
    ("discover_hidden_point", {"where": "the rug"}),
    ("transfer_item", {"item": "ledger", "to": "me"}),
    ("transfer_item", {"item": "rope", "to": "me"}),
    ("buy_item", {"item": "chalice"}),
    ("sell_item", {"item": "dagger", "to": "greta"}),
    ("gather", {"resource": "silver"}),
    ("hold_item", {"item": "secret"}),
    ("damage", {"target": "jory", "dice": "1d4"}),
    ("heal", {"target": "jory", "dice": "1d4"}),
    ("stabilise", {"target": "hilda"}),
    ("rest", {"kind": "short"}),
    ("spend_resource", {"resource": "secrets"}),
    ("grant_clue", {"clue": "Wet footprints"}),
    ("grant_clue", {"clue": "PLANTED-HILDA-SECRET"}),
    ("complete_errand", {"quest": "clear-road"}),
    ("offer_quest", {"npc": "hilda", "quest": "clear-road"}),
    ("reveal_secret", {"npc": "hilda"}),
    ("reveal_secret", {"npc": "greta"}),
    ("reveal_secret", {"npc": "Jory"}),
    ("seed_hook", {"trigger": {"type": "enter", "location": "cellar"}, "text": "A crate creaks."}),
    ("cancel_hook", {"hook": "midnight-lantern"}),
    ("seed_rumour", {"text": "They say the inn hides something."}),
    ("note_character_fact", {"fact": "Ren asked about the cellar."}),
    ("set_debt", {"debtor": "me", "creditor": "greta", "amount": 3}),
    ("settle_debt", {"with": "greta", "amount": 1}),
    ("pawn_item", {"item": "dagger", "to": "greta"}),
    ("adjust_trust", {"npc": "greta", "move": "persuade"}),
    ("log_event", {"narration": "The fire pops.", "suggestions": ["Ask Jory", "Look around"]}),
]


def leaked(scene, outcomes) -> list[str]:
    texts = [json.dumps(o.to_dict(), ensure_ascii=False) for o in outcomes]
    texts += [e.text for o in outcomes for e in o.events]
    texts += [json.dumps(e.to_dict(), ensure_ascii=False) for e in scene.state.events]
    blob = "\n".join(texts)
    return [marker for marker in [*PLANTED.values(), *ELSEWHERE] if marker in blob]


def test_the_battery_calls_every_tool():
    assert {name for name, _ in CALLS} == set(TOOLS)


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_no_tool_result_carries_a_secret_without_the_gate(language):
    world = planted_world()
    scene = scene_for(world, new_state(world), "ren", language)
    say(scene, "Hilda, what are you hiding? Any work for me?")
    outcomes = []
    for name, arguments in CALLS:
        outcomes.append(call(scene, name, **arguments))
        scene.state.pending.pop("ren", None)  # let every roll request run
    assert not any(o.ok for (n, _), o in zip(CALLS, outcomes, strict=True) if n == "reveal_secret")
    assert leaked(scene, outcomes) == []


def test_once_the_gate_passes_only_that_npcs_secret_comes_out():
    world = planted_world()
    scene = scene_for(world, new_state(world), "ren")
    scene.state.trust["hilda"] = {"ren": START_SCORES["ally"]}
    outcomes = [call(scene, name, **arguments) for name, arguments in CALLS]
    assert leaked(scene, outcomes) == ["PLANTED-HILDA-SECRET"]
    [told] = [o for (n, a), o in zip(CALLS, outcomes, strict=True) if n == "reveal_secret" and o.ok]
    assert told.result["secret"] == "PLANTED-HILDA-SECRET"
    assert all("PLANTED" not in e.text for e in scene.state.events)  # the log stays clean
