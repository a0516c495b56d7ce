"""engine.gm.tools world, deals and trust groups: hooks the engine fires, rumours, facts, debts
and pawns as state, and trust moved by seed 001's list of moves."""

from __future__ import annotations

import pytest

from engine.gm.hooks import fire_hooks
from engine.gm.state import advance_clock
from engine.gm.trust import trust_score
from engine.gm.world import Holder
from tests.engine.gm.toolkit import call, demo_scene

# --- hooks, rumours, facts ----------------------------------------------------------------------


def test_a_seeded_hook_fires_like_an_authored_one():
    scene = demo_scene()
    outcome = call(
        scene, "seed_hook", trigger={"type": "time", "time_of_day": "evening"},
        text="A cart overturns outside.",
    )  # fmt: skip
    assert outcome.ok and outcome.result["hook"] == "seeded-hook-1"
    assert fire_hooks(scene, "time") == []
    scene.state.clock = advance_clock(scene.state.clock, 2)
    [event] = [e for e in fire_hooks(scene, "time") if e.actor == "seeded-hook-1"]
    assert event.text == "A cart overturns outside."


def test_a_hook_on_entering_needs_its_place_and_no_hook_waits_for_the_past():
    scene = demo_scene()
    assert call(scene, "seed_hook", trigger={"type": "enter"}, text="x").error == (
        "A hook that fires on entering needs the place."
    )
    past = call(scene, "seed_hook", trigger={"type": "time", "day": 1, "time_of_day": "morning"},
                text="x")  # fmt: skip
    assert past.error == ("That time has already come: a hook can only wait for what is ahead.")
    assert call(scene, "seed_hook", trigger={"type": "enter", "location": "the chapel"},
                text="A bell tolls.").ok  # fmt: skip
    assert scene.state.hooks[0].trigger.location == "chapel"


def test_a_cancelled_hook_does_not_fire_and_a_fired_one_cannot_be_cancelled():
    scene = demo_scene()
    assert call(scene, "cancel_hook", hook="mill-bell").ok
    scene.me.location = "old-mill"
    assert fire_hooks(scene, "enter") == []
    assert call(scene, "cancel_hook", hook="mill-bell").error == (
        "The hook 'mill-bell' is already cancelled."
    )
    scene.state.fired_hooks.append("midnight-lantern")
    assert call(scene, "cancel_hook", hook="midnight-lantern").error == (
        "The hook 'midnight-lantern' has already happened."
    )


def test_a_rumour_is_heard_at_known_places():
    scene = demo_scene()
    outcome = call(scene, "seed_rumour", text="The priest gambles.", heard_at=["market", "chapel"])
    assert outcome.ok and scene.state.rumours[0].heard_at == ["square", "chapel"]
    assert call(scene, "seed_rumour", text="x", heard_at=["Atlantis"]).error.startswith(
        "There is no place called 'Atlantis'."
    )


@pytest.mark.parametrize(
    ("language", "done"),
    [
        ("en", "A rumour goes round at Market Square, a place you don't know."),
        ("es", "Corre un rumor en Plaza del Mercado, un lugar que no conoces."),
        ("zh", "一个传言在集市广场、一个你不知道的地方流传。"),
    ],
)
def test_a_rumour_names_only_the_places_he_knows(language, done):
    """Issue 32 (finding 7): the fallback closure shows this line to the player."""
    scene = demo_scene(language=language)
    heard_at = ["old-mill", "square", "Pell's General Store"]
    outcome = call(scene, "seed_rumour", text="The priest gambles.", heard_at=heard_at)
    assert outcome.ok and outcome.result["done"] == done
    assert scene.state.rumours[0].heard_at == ["old-mill", "square", "store"]


def test_a_fact_attaches_to_an_existing_character_once():
    scene = demo_scene()
    assert call(scene, "note_character_fact", fact="Ren  lied to the priest.").ok
    assert scene.me.facts == ["Ren lied to the priest."]
    assert call(scene, "note_character_fact", fact="ren lied to the priest.").error == (
        "That is already noted."
    )
    other = call(scene, "note_character_fact", character="Ada", fact="Ada prays.")
    assert other.result == {"code": "other-seat"}  # another player's: only by a roll (seats)
    assert scene.state.characters["ada"].facts == []
    assert call(scene, "note_character_fact", character="Bob", fact="x").error == (
        "There is no character called 'Bob'."
    )


# --- deals --------------------------------------------------------------------------------------


def test_a_loan_is_a_debt_and_the_money_changes_hands():
    scene = demo_scene()
    outcome = call(scene, "set_debt", debtor="me", creditor="hilda", amount=5, due_in_days=3,
                   cash=True, note="a loan")  # fmt: skip
    assert outcome.ok and scene.me.money == 8
    debt = scene.state.debts[-1]
    assert (debt.debtor, debt.creditor, debt.amount, debt.due_day) == ("ren", "hilda", 5, 4)
    assert outcome.result["done"] == "Ren Ashby now owes Hilda Brant 5."


def test_a_debt_is_between_the_character_and_someone_present():
    scene = demo_scene()
    assert call(scene, "set_debt", debtor="hilda", creditor="hilda", amount=1).error == (
        "A debt needs two different parties."
    )
    assert call(scene, "set_debt", debtor="me", creditor="Greta", amount=1).error.startswith(
        "Nobody called 'Greta' is here."
    )


def test_settling_the_pawns_debt_in_full_gives_the_ring_back():
    scene = demo_scene()
    scene.me.location, scene.me.money = "square", 20
    partial = call(scene, "settle_debt", **{"with": "greta"}, amount=5)
    assert partial.ok and partial.result["left"] == 7 and scene.state.debts[0].amount == 7
    assert scene.state.items["silver-ring"] == Holder(npc="greta")
    full = call(scene, "settle_debt", debt="ren-owes-greta")
    assert full.ok and scene.state.debts == [] and scene.state.pawns == []
    assert scene.state.items["silver-ring"] == Holder(character="ren")
    assert scene.me.money == 8


def test_a_debt_cannot_be_overpaid_or_paid_without_the_money():
    scene = demo_scene()
    scene.me.location = "square"
    assert call(scene, "settle_debt", amount=13).error == "The debt is only 12."
    assert call(scene, "settle_debt").error == "Ren Ashby has 3; the payment is 12."


def test_pawning_lends_half_the_value_at_most_the_value():
    scene = demo_scene()
    call(scene, "transfer_item", item="rope", to="me")
    assert call(scene, "pawn_item", item="rope", to="hilda", amount=2).error == (
        "Nobody lends more than 1 on coil of rope."
    )
    outcome = call(scene, "pawn_item", item="dagger", to="hilda")
    assert outcome.ok and scene.me.money == 4
    assert scene.state.items["dagger"] == Holder(npc="hilda")
    assert scene.state.pawns[-1].debt == outcome.result["debt"]


# --- trust --------------------------------------------------------------------------------------


def test_trust_moves_by_the_npcs_authored_amount_once_per_turn():
    scene = demo_scene()
    hilda = scene.gm.npcs_by_id["hilda"]
    before = trust_score(scene.state, hilda, "ren")
    outcome = call(scene, "adjust_trust", npc="hilda", move="insult", reason="called her a thief")
    assert outcome.ok and trust_score(scene.state, hilda, "ren") == before - 15
    assert outcome.result["level"] == "stranger"
    assert call(scene, "adjust_trust", npc="hilda", move="insult").error == (
        "That already moved Hilda Brant's trust this turn."
    )


def test_flattery_sours_an_npc_that_dislikes_it():
    scene = demo_scene()
    scene.gm.npcs_by_id["hilda"].dislikes_flattery = True
    assert call(scene, "adjust_trust", npc="hilda", move="flatter").changes == {
        "trust": {"hilda": -5}
    }


def test_trust_moves_only_by_the_seeds_list():
    outcome = call(demo_scene(), "adjust_trust", npc="hilda", move="bribe")
    assert outcome.error.startswith("'move' must be one of: fulfil_quest, give_needed")
