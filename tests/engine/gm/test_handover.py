"""engine.gm.handover and engine.gm.handin: giving, holding, and an errand completed by its world
rule when its item reaches its receiver (issue 33 §1), at zero model calls; the master's tools
obey the same rule."""

from __future__ import annotations

import copy

from engine.gm.play import ensure_gm_state
from engine.gm.world import Holder, JournalEntry
from tests.engine.gm.test_trade import act, ren, ren_at
from tests.engine.gm.toolkit import call, demo_scene, world_with
from tests.engine.gm.worlds import demo_data, new_state, scene_for

CHALICE_DONE = (
    'You give the silver chalice to the priest. "The missing chalice" is done. '
    "You receive 20 coins."
)


def test_giving_the_chalice_to_the_priest_completes_the_errand_and_pays_its_reward():
    world, state = ren_at("chapel", carries=("chalice",))
    done = act(world, state, "give the chalice to the priest")
    assert (done.kind, done.model_calls) == ("engine", 0)
    assert done.narration == CHALICE_DONE
    assert ren(done).completed == ["find-chalice"] and ren(done).money == 23
    assert ("quest", "find-chalice") in {(j.kind, j.ref) for j in ren(done).journal}
    assert done.state.gm.items["chalice"] == Holder(npc="father-aldric")
    assert done.changes["trust"] == {"father-aldric": 20}
    assert [e.kind for e in done.events] == ["give", "errand"]
    assert done.events[1].text == 'Ren Ashby completes "The missing chalice".'


def test_the_hand_in_reads_in_spanish_and_chinese():
    world, state = ren_at("chapel", carries=("chalice",))
    es = act(world, state, "le doy el cáliz al cura", "es")
    assert es.narration.startswith("Le das ") and es.narration.endswith("Recibes 20 monedas.")
    assert "»: cumplido." in es.narration and ren(es).completed == ["find-chalice"]
    assert [e.text for e in es.events] == [  # the log keeps the world's own words
        "Ren Ashby gives the silver chalice to the priest.",
        'Ren Ashby completes "The missing chalice".',
    ]
    zh = act(world, state, "把圣杯交给神父", "zh")
    assert zh.narration.startswith("你把") and zh.narration.endswith("完成了。你得到了20枚钱币。")
    for english in ("chalice", "priest", "coins", "give", "done"):
        assert english not in es.narration and english not in zh.narration


def test_the_next_turn_of_the_master_knows_the_hand_in_as_facts():
    world, state = ren_at("chapel", carries=("chalice",))
    done = act(world, state, "give the chalice to the priest")
    after = act(world, done.state, "I kneel before the altar")
    assert 'Ren Ashby completes "The missing chalice".' in after.context


def test_an_errand_is_done_once():
    world, state = ren_at("chapel", carries=("chalice",))
    done = act(world, state, "give the chalice to the priest")
    gm = done.state.gm
    gm.items["chalice"] = Holder(character="ren")
    again = act(world, done.state, "give the chalice to the priest")
    assert again.narration == "You give the silver chalice to the priest."
    assert ren(again).money == 23


def test_an_errand_whose_requirement_fails_keeps_its_item_with_the_giver():
    quests = copy.deepcopy(demo_data()["gameMaster"]["quests"])
    need = {"type": "trust", "npc": "father-aldric", "atLeast": "friend"}
    quests[0]["handIn"]["requires"] = [need]
    world, state = ren_at("chapel", carries=("chalice",), quests=quests)
    refused = act(world, state, "give the chalice to the priest")
    assert refused.kind == "refused"
    assert refused.narration == "The priest will not take the silver chalice yet."
    assert refused.state.gm.items["chalice"] == Holder(character="ren")


def test_giving_to_someone_who_is_not_here_is_refused():
    world, state = ren_at("store", carries=("chalice",))
    refused = act(world, state, "give the chalice to the priest")
    assert refused.narration == "The priest is not here."


def test_without_a_receiver_named_the_only_one_here_gets_it_and_several_are_asked():
    world, state = ren_at("chapel", carries=("chalice",))
    assert act(world, state, "hand over the chalice").narration == CHALICE_DONE
    world, state = ren_at("square", carries=("rope",))
    asked = act(world, state, "hand over the rope")
    assert asked.kind == "ask"
    assert asked.narration.startswith("Give the coil of rope to whom? Here: Greta Vell, ")


def test_another_players_character_can_be_given_ones_own_item():
    world, state = ren_at("square", carries=("rope",))
    ensure_gm_state(world, state).characters["ren"].known_names.append("ada")
    done = act(world, state, "I give the rope to Ada")
    assert done.narration == "You give the coil of rope to Ada Thorne."
    assert done.state.gm.items["rope"] == Holder(character="ada")
    assert "ada" in done.events[0].seen_by


def test_a_gift_an_npc_needs_raises_its_trust():
    npcs = copy.deepcopy(demo_data()["gameMaster"]["npcs"])
    npcs[0]["needs"] = ["rope"]
    world, state = ren_at("the-wayfarer", carries=("rope",), npcs=npcs)
    done = act(world, state, "I give Hilda the rope")
    assert done.changes["trust"] == {"hilda": 10}


def test_giving_what_he_does_not_carry_is_refused():
    world, state = ren_at("chapel")
    assert act(world, state, "give the chalice to the priest").narration == (
        "You don't have the silver chalice."
    )


def test_a_whole_stack_changes_hands():
    world, state = ren_at("the-wayfarer", carries=("bread",))
    ensure_gm_state(world, state).counts["bread"] = 2
    done = act(world, state, "give the bread to Hilda")
    assert done.narration == "You give the loaf of bread (×2) to Hilda Brant."


# --- holding -----------------------------------------------------------------------------------


def test_equip_puts_a_carried_item_in_hand_and_unequip_empties_it():
    world, state = ren_at("the-wayfarer", carries=("rope",))
    held = act(world, state, "wield the rope")
    assert (held.kind, held.narration) == ("engine", "You take the coil of rope in hand.")
    assert ren(held).in_hand == "rope"
    assert held.events[0].text == "Ren Ashby takes the coil of rope in hand."
    put = act(world, held.state, "put it away")
    assert (put.narration, ren(put).in_hand) == ("You put away the coil of rope.", None)
    assert act(world, put.state, "sheathe my dagger").narration == "Your hands are already empty."
    dagger = act(world, state, "put away the rope")
    assert dagger.narration == "You are not holding the coil of rope; you hold the dagger."


def test_my_weapon_is_the_one_weapon_carried():
    world, state = ren_at("the-wayfarer")
    ensure_gm_state(world, state).characters["ren"].in_hand = None
    drawn = act(world, state, "I draw my weapon")
    assert drawn.narration == "You take the dagger in hand."
    assert act(world, drawn.state, "draw my dagger").narration == "You already hold the dagger."


def test_holding_what_he_does_not_carry_is_refused():
    world, state = ren_at("store")
    assert act(world, state, "I hold the lantern").narration == "You don't have the hooded lantern."


# --- the master's tools obey the same rule -------------------------------------------------------


def test_the_masters_hand_over_completes_the_errand_by_its_rule():
    scene = demo_scene()
    scene.me.location = "chapel"
    scene.state.items["chalice"] = Holder(character="ren")
    outcome = call(scene, "transfer_item", item="chalice", to="father-aldric")
    assert outcome.ok and scene.me.completed == ["find-chalice"] and scene.me.money == 23
    assert outcome.result["done"].endswith('"The missing chalice" is done. You receive 20 coins.')


def test_the_master_cannot_complete_a_hand_in_errand_before_its_item_arrives():
    world = world_with()
    state = new_state(world)
    scene = scene_for(world, state, "ren")
    scene.me.location = "chapel"
    scene.me.journal.append(JournalEntry(kind="quest", ref="find-chalice", title="x"))
    scene._npcs.clear()
    outcome = call(scene, "complete_errand", quest="find-chalice")
    assert outcome.error == (
        "'The missing chalice' is not done yet: silver chalice must reach the priest."
    )
    assert scene.me.completed == []
