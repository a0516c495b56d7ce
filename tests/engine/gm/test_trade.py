"""engine.gm.trade and engine.gm.market: buying and selling as engine moves in Brackenford, at
zero model calls, refused with the sentence that says why (issue 33 §1)."""

from __future__ import annotations

import copy
from typing import Any

from engine.gm import market
from engine.gm.play import ensure_gm_state
from engine.gm.world import Holder
from engine.session import SessionState
from engine.world import WorldDefinition, load_world
from tests.engine.gm.toolkit import call, demo_scene
from tests.engine.gm.worlds import demo_data, demo_world, new_state, play


def ren_at(
    location: str, carries: tuple[str, ...] = (), money: int | None = None, **gm: Any
) -> tuple[WorldDefinition, SessionState]:
    data = copy.deepcopy(demo_data())
    data["gameMaster"].update(gm)
    world = load_world(data) if gm else demo_world()
    state = new_state(world)
    gm_state = ensure_gm_state(world, state, 1)
    gm_state.characters["ren"].location = location
    for item in carries:
        gm_state.items[item] = Holder(character="ren")
    if money is not None:
        gm_state.characters["ren"].money = money
    return world, state


def act(world: WorldDefinition, state: SessionState, text: str, language: str = "en"):
    return play(world, state, text, "ren", language=language)


def ren(result):
    return result.state.gm.characters["ren"]


# --- buying ------------------------------------------------------------------------------------


def test_buying_bread_takes_its_price_and_gives_the_loaf_at_no_model_call():
    world, state = ren_at("store")
    done = act(world, state, "buy a loaf of bread")
    assert (done.kind, done.model_calls) == ("engine", 0)
    assert done.narration == (
        "You buy the loaf of bread from the shopkeeper for 1 coin. You have 2 coins left."
    )
    assert ren(done).money == 2
    assert done.state.gm.items["bread"] == Holder(character="ren")
    assert done.changes["money"] == {"from": 3, "to": 2}


def test_a_purchase_is_seen_by_everyone_present():
    world, state = ren_at("store")
    ensure_gm_state(world, state).characters["ada"].location = "store"
    done = act(world, state, "I'd like a loaf of bread")
    [event] = done.events
    assert event.kind == "buy" and {"ada", "osric", "ren"} <= set(event.seen_by)
    assert event.text == "Ren Ashby buys the loaf of bread from the shopkeeper."
    assert "ada" in done.delivered_to


def test_a_character_short_of_money_hears_what_he_has_and_what_it_costs():
    world, state = ren_at("store")
    refused = act(world, state, "buy the lantern")
    assert refused.kind == "refused" and refused.model_calls == 0
    assert refused.narration == "You have 3 coins; the hooded lantern costs 5 coins."
    assert refused.state.gm.items["lantern"] == Holder(npc="osric")
    assert ren(refused).money == 3


def test_where_nobody_trades_buying_is_refused():
    world, state = ren_at("square")
    assert act(world, state, "buy a loaf of bread").narration == "Nobody here sells anything."


def test_what_the_trader_does_not_sell_is_refused_with_his_wares():
    world, state = ren_at("store")
    refused = act(world, state, "I buy a sword")
    assert refused.narration == (
        'The shopkeeper doesn\'t sell "sword". For sale: hooded lantern (5 coins), '
        "loaf of bread (1 coin)."
    )
    chalice = act(world, state, "buy the chalice")
    assert chalice.narration.startswith("The shopkeeper doesn't sell the silver chalice.")


def test_buying_with_nothing_named_asks_what_with_the_wares():
    world, state = ren_at("the-wayfarer")
    asked = act(world, state, "I'd like to buy something")
    assert asked.kind == "ask"
    assert (
        asked.narration
        == "Buy what? Hilda Brant sells: pint of ale (1 coin), bowl of stew (2 coins)."
    )


def test_a_good_with_a_quantity_is_sold_until_it_runs_out():
    shops = copy.deepcopy(demo_data()["gameMaster"]["shops"])
    shops[0]["stock"][1]["quantity"] = 2
    world, state = ren_at("store", money=9, shops=shops)
    first = act(world, state, "buy bread")
    second = act(world, first.state, "buy bread")
    assert second.changes["counts"] == {"bread": {"from": 1, "to": 2}}
    assert market.units(second.state.gm, "bread") == 2
    third = act(world, second.state, "buy bread")
    assert third.narration == "The loaf of bread is sold out: the shopkeeper has none left."
    assert ren(third).money == 7


def test_spanish_and_chinese_purchases_are_narrated_in_their_own_words():
    world, state = ren_at("store")
    es = act(world, state, "compro pan", "es").narration
    assert es.startswith("Compras ") and es.endswith(" por 1 moneda. Ahora tienes 2 monedas.")
    zh = act(world, state, "我要买一个面包", "zh").narration
    assert zh.startswith("你花1枚钱币从") and zh.endswith("。你还剩2枚钱币。")
    for english in ("loaf", "bread", "shopkeeper", "coin", "buy"):
        assert english not in es and english not in zh


def test_the_buy_tool_charges_what_the_move_charges():
    scene = demo_scene()
    scene.me.location = "the-wayfarer"
    outcome = call(scene, "buy_item", item="stew")
    assert outcome.ok and scene.me.money == 1  # the stock's price, 2, not the kind's
    assert scene.state.sold == {"wayfarer-bar:stew": 1}


# --- selling -----------------------------------------------------------------------------------


def test_selling_the_rope_to_the_merchant_pays_his_share_of_its_price():
    world, state = ren_at("store", carries=("rope",))
    done = act(world, state, "sell the coil of rope")
    assert (done.kind, done.model_calls) == ("engine", 0)
    assert done.narration == (
        "You sell the coil of rope to the shopkeeper for 1 coin. You have 4 coins now."
    )
    assert done.state.gm.items["rope"] == Holder(npc="osric")
    assert [e.text for e in done.events] == ["Ren Ashby sells the coil of rope to the shopkeeper."]


def test_the_innkeeper_does_not_buy_rope():
    world, state = ren_at("the-wayfarer", carries=("rope",))
    refused = act(world, state, "sell the rope to Hilda")
    assert refused.kind == "refused"
    assert refused.narration == "Hilda Brant doesn't buy the coil of rope."
    assert refused.state.gm.items["rope"] == Holder(character="ren")


def test_what_nobody_here_wants_or_values_is_refused():
    world, state = ren_at("store")
    assert act(world, state, "sell my dagger").narration == "The shopkeeper doesn't buy the dagger."
    assert act(world, state, "sell the chalice").narration == "You don't have the silver chalice."


def test_a_unit_sold_from_a_stack_leaves_the_rest():
    scene = demo_scene()
    scene.me.location = "store"
    scene.state.items["rope"] = Holder(character="ren")
    scene.state.counts["rope"] = 3
    osric = scene.gm.npcs_by_id["osric"]
    changes = market.sell(scene, osric, scene.gm.items_by_id["rope"], 1)
    assert changes["counts"] == {"rope": {"from": 3, "to": 2}}
    assert scene.state.items["rope"] == Holder(character="ren")


def test_a_price_is_the_shops_then_the_lists_by_item_then_by_kind_then_the_value():
    gm = demo_world().game_master
    assert gm is not None
    store, bar = gm.shops
    items = gm.items_by_id
    assert market.price(gm, items["bread"], store) == 1  # the stock line
    assert market.price(gm, items["lantern"]) == 5  # the list, by item
    assert market.price(gm, items["rope"]) == 2  # the list, by kind (gear)
    assert market.price(gm, items["chalice"]) == 40  # its value
    assert market.sale_price(gm, store, items["rope"]) == 1  # gear, at half
    assert market.sale_price(gm, bar, items["rope"]) is None  # Hilda buys no rope
