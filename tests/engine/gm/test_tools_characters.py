"""engine.gm.tools characters group: damage and healing rolled by the engine within the hit-point
bounds, nobody dying by a tool, stabilising, resting on the engine's clock, spending resources."""

from __future__ import annotations

from engine.gm.world import Resource
from tests.engine.gm.toolkit import call, demo_scene


def test_damage_is_rolled_from_dice_and_lowers_hit_points():
    scene = demo_scene()
    outcome = call(scene, "damage", target="hilda", dice="1d4", reason="a thrown mug")
    assert outcome.ok
    [roll] = outcome.rolls
    assert roll.kind == "damage" and 1 <= roll.total <= 4
    assert scene.state.npc_hp["hilda"] == 9 - roll.total
    assert outcome.changes == {"npcHp": {"hilda": {"from": 9, "to": 9 - roll.total}}}
    assert outcome.result["done"] == f"Hilda Brant takes {roll.total} damage."


def test_a_weapons_dice_are_its_damage():
    scene = demo_scene()
    outcome = call(scene, "damage", target="hilda", weapon="dagger")
    assert outcome.rolls[0].die == "1d4"


def test_damage_needs_dice_or_a_weapon_not_both_and_never_huge_dice():
    scene = demo_scene()
    both = call(scene, "damage", target="hilda", dice="1d4", weapon="dagger")
    assert both.error == "Give either the dice (like 1d6) or a weapon: one of the two."
    assert call(scene, "damage", target="hilda", dice="99d20").error.startswith("'99d20' is not")
    assert call(scene, "damage", target="hilda", dice="lots").error.startswith("'lots' is not")
    assert call(scene, "damage", target="hilda", weapon="coil of rope").error == (
        "Coil of rope is not a weapon."
    )


def test_a_character_at_zero_falls_dying_and_an_npc_collapses_nobody_dies():
    scene = demo_scene()
    scene.me.hp = 1
    outcome = call(scene, "damage", target="me", dice="1d4+4")
    assert outcome.ok and scene.me.hp == 0
    assert scene.me.conditions == ["unconscious", "dying"]
    assert outcome.result["done"].endswith("and falls.")
    again = call(scene, "damage", target="me", dice="1d4")
    assert again.error == "Ren Ashby is already down: the engine never kills."
    scene.state.npc_hp["hilda"] = 1
    assert call(scene, "damage", target="hilda", dice="1d4+4").ok
    assert scene.state.npc_hp["hilda"] == 0


def test_healing_is_capped_at_the_maximum_and_brings_a_fallen_character_round():
    scene = demo_scene()
    scene.me.hp, scene.me.conditions = 0, ["unconscious", "dying"]
    outcome = call(scene, "heal", target="Ren", dice="2d4+20")
    assert outcome.ok and scene.me.hp == 9 and scene.me.conditions == []
    assert call(scene, "heal", target="me", dice="1d4").error == "Ren Ashby is not hurt."


def test_healing_can_spend_a_resource_and_not_one_that_is_missing():
    scene = demo_scene()
    scene.me.hp = 2
    scene.me.resources["potions"] = Resource(current=1, max=3)
    outcome = call(scene, "heal", target="me", dice="2d4+2", spend="potions")
    assert outcome.ok and scene.me.resources["potions"].current == 0
    scene.me.hp = 2
    assert call(scene, "heal", target="me", dice="1d4", spend="potions").error == (
        "Ren Ashby has only 0 potions."
    )
    assert call(scene, "heal", target="me", dice="1d4", spend="slots").error == (
        "Ren Ashby has no slots."
    )


def test_the_target_must_be_here():
    outcome = call(demo_scene(), "heal", target="Ada Thorne", dice="1d4")
    assert outcome.error == "Ada Thorne is not here."


def test_stabilising_is_a_medicine_check_rolled_at_once():
    scene = demo_scene("ada")
    ren = scene.state.characters["ren"]
    ren.location, ren.hp, ren.conditions = "square", 0, ["unconscious", "dying"]
    outcome = call(scene, "stabilise", target="Ren")
    assert outcome.ok
    ren = scene.state.characters["ren"]  # the state's parts are the applied copy's now
    [roll] = outcome.rolls
    assert roll.check == "medicine" and roll.dc == 10 and not roll.hidden
    if roll.outcome == "success":
        assert ren.conditions == ["unconscious", "stable"] and outcome.result["stabilised"]
    else:
        assert "dying" in ren.conditions and outcome.result["stabilised"] is False


def test_only_the_dying_are_stabilised():
    outcome = call(demo_scene(), "stabilise", target="hilda")
    assert outcome.error == "Hilda Brant is not dying."


def test_a_short_rest_spends_a_hit_die_and_the_engines_hour():
    scene = demo_scene()
    scene.me.hp = 1
    outcome = call(scene, "rest", kind="short")
    assert outcome.ok and scene.state.clock.time_of_day == "afternoon"
    assert outcome.changes["clock"]["to"]["timeOfDay"] == "afternoon"
    assert scene.me.hp == min(9, 1 + outcome.rolls[0].total)
    assert outcome.result["done"] == "Ren Ashby rests until afternoon."


def test_a_long_rest_restores_everything_once_a_day_and_fires_time_hooks():
    scene = demo_scene()
    scene.state.clock = scene.state.clock.model_copy(update={"time_of_day": "evening"})
    scene.me.hp = 1
    scene.me.resources["slots"] = Resource(current=0, max=2)
    outcome = call(scene, "rest", kind="long")
    assert outcome.ok and scene.me.hp == 9 and scene.me.resources["slots"].current == 2
    assert (scene.state.clock.day, scene.state.clock.time_of_day) == (2, "morning")
    assert "midnight-lantern" in scene.state.fired_hooks
    assert [e.kind for e in outcome.events] == ["rest", "hook"]
    assert call(scene, "rest", kind="long").error == "Ren Ashby has already had a long rest today."


def test_a_rest_follows_the_worlds_authored_length():
    scene = demo_scene(settings={"shortRest": 2, "longRest": 3})
    call(scene, "rest", kind="short")
    assert scene.state.clock.time_of_day == "evening"


def test_spending_a_resource():
    scene = demo_scene()
    scene.me.resources["arrows"] = Resource(current=5, max=20)
    outcome = call(scene, "spend_resource", resource="Arrows", amount=2)
    assert outcome.ok and scene.me.resources["arrows"].current == 3
    assert outcome.result["done"] == "Ren Ashby spends 2 arrows."
    assert call(scene, "spend_resource", resource="arrows", amount=4).error == (
        "Ren Ashby has only 3 arrows."
    )
