"""engine.gm.tools read and dice groups: campaign notes (never the GM notes), the rule sheet, and
checks and attacks whose numbers only the server's dice decide."""

from __future__ import annotations

from engine.gm.rulebook import rule_sheet, topics
from engine.gm.trust import START_SCORES
from tests.engine.gm.toolkit import call, demo_scene, snapshot

# --- read ---------------------------------------------------------------------------------------


def test_campaign_notes_are_the_notes_never_the_gm_notes_or_the_plan():
    outcome = call(demo_scene(), "get_campaign_notes")
    assert outcome.ok
    assert outcome.result["notes"].startswith("Brackenford is a market village")
    text = str(outcome.to_dict())
    assert "GM ONLY" not in text and "Session 1" not in text


def test_a_world_without_notes_says_so():
    outcome = call(demo_scene(campaign={"gmNotes": "GM ONLY"}), "get_campaign_notes")
    assert outcome.result == {"notes": "There are no campaign notes."}


def test_lookup_rule_reads_one_entry_of_the_sheet():
    outcome = call(demo_scene(), "lookup_rule", topic="death-saves")
    assert outcome.result["title"] == "Death saving throws"
    assert "three successes" in outcome.result["text"].lower()


def test_the_rule_sheet_is_stable_and_covers_the_basics():
    assert rule_sheet() == rule_sheet()
    for topic in ("ability-checks", "advantage", "attack", "damage", "conditions", "resting",
                  "death-saves"):  # fmt: skip
        assert topic in topics()


def test_read_tools_change_nothing():
    scene = demo_scene()
    before = snapshot(scene)
    call(scene, "get_campaign_notes")
    call(scene, "lookup_rule", topic="resting")
    assert snapshot(scene) == before


# --- dice ---------------------------------------------------------------------------------------


def test_a_check_waits_for_the_players_roll_and_the_model_gives_no_number():
    scene = demo_scene()
    counter = scene.state.dice.counter
    outcome = call(scene, "request_skill_check", check="athletics", dc=15, reason="climb the wall")
    assert outcome.ok and outcome.result["done"] == "That is risky. Roll Athletics (DC 15)."
    assert outcome.pending is not None and outcome.pending.check == "athletics"
    assert (
        scene.state.pending["ren"].dc == 15 and scene.state.pending["ren"].text == "climb the wall"
    )
    assert outcome.rolls == [] and scene.state.dice.counter == counter


def test_a_social_check_against_an_npc_takes_the_engines_dc_from_trust():
    scene = demo_scene()
    scene.state.trust["hilda"] = {"ren": START_SCORES["wary"]}
    outcome = call(scene, "request_skill_check", check="persuasion", dc=5, target="hilda")
    assert outcome.result["dc"] == 20


def test_a_check_without_a_dc_asks_for_one():
    outcome = call(demo_scene(), "request_skill_check", check="athletics")
    assert not outcome.ok and outcome.error == "Say how hard it is: a DC of 5, 10, 15, 20, 25, 30."


def test_one_roll_waits_at_a_time():
    scene = demo_scene()
    assert call(scene, "request_skill_check", check="stealth", dc=10).ok
    again = call(scene, "request_attack", target="hilda")
    assert again.error == "A roll is already waiting: one action at a time."


def test_a_hidden_check_rolls_at_once_without_a_button():
    scene = demo_scene()
    outcome = call(scene, "request_skill_check", check="insight", dc=10, hidden=True)
    assert outcome.ok and outcome.pending is None and "ren" not in scene.state.pending
    assert outcome.result["hidden"] is True and outcome.result["outcome"] in ("success", "failure")
    assert [r.hidden for r in outcome.rolls] == [True]
    assert scene.state.dice.counter == 1


def test_the_same_seed_rolls_the_same_hidden_check():
    first = call(demo_scene(), "request_skill_check", check="insight", dc=15, hidden=True)
    second = call(demo_scene(), "request_skill_check", check="insight", dc=15, hidden=True)
    assert first.rolls[0].faces == second.rolls[0].faces


def test_a_theft_names_something_the_target_holds():
    scene = demo_scene()
    outcome = call(
        scene, "request_skill_check", check="sleight-of-hand", dc=15, purpose="steal",
        target="hilda", item="lantern",
    )  # fmt: skip
    assert not outcome.ok and outcome.error.startswith("There is no 'lantern' within reach")
    assert call(scene, "request_skill_check", check="sleight-of-hand", dc=15,
                purpose="steal", target="hilda").error == "Say what is stolen."  # fmt: skip


def test_forcing_needs_a_locked_way_here():
    scene = demo_scene()
    outcome = call(scene, "request_skill_check", check="athletics", dc=15, purpose="force")
    assert outcome.ok and scene.state.pending["ren"].way == "down"
    square = demo_scene("ada")
    refused = call(square, "request_skill_check", check="athletics", dc=15, purpose="force")
    assert refused.error == "There is no single locked way here to open. Locked: -."


def test_an_attack_waits_for_the_roll_against_the_targets_armour():
    scene = demo_scene()
    outcome = call(scene, "request_attack", target="the innkeeper")
    assert outcome.ok and outcome.result["dc"] == 11
    assert (
        scene.state.pending["ren"].kind == "attack" and scene.state.pending["ren"].target == "hilda"
    )


def test_nobody_attacks_someone_who_is_already_down():
    scene = demo_scene()
    scene.state.npc_hp["hilda"] = 0
    outcome = call(scene, "request_attack", target="hilda")
    assert outcome.error == "Hilda Brant is already down: the engine never kills."


def test_an_attack_needs_someone_present():
    outcome = call(demo_scene(), "request_attack", target="Greta")
    assert outcome.error == "Nobody called 'Greta' is here. Here: Hilda Brant."


def test_a_character_who_is_down_cannot_ask_for_rolls():
    scene = demo_scene()
    scene.me.hp, scene.me.conditions = 0, ["unconscious", "dying"]
    outcome = call(scene, "request_skill_check", check="athletics", dc=10)
    assert outcome.error == "Ren Ashby is down and cannot act now."
