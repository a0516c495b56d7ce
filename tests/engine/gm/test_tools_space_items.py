"""engine.gm.tools space and items groups: moving anyone only along ways that exist, searching
for hidden points, and items that are always in exactly one place."""

from __future__ import annotations

import copy

from engine.gm.world import Holder
from tests.engine.gm.toolkit import call, demo_scene
from tests.engine.gm.worlds import demo_data

# --- space --------------------------------------------------------------------------------------


def test_the_character_moves_along_an_existing_way():
    scene = demo_scene()
    outcome = call(scene, "move_character", to="Market Square")
    assert outcome.ok and scene.me.location == "square"
    assert outcome.changes["location"] == {"from": "the-wayfarer", "to": "square"}
    assert outcome.result["done"].startswith("You go south to Market Square.")
    assert [e.kind for e in outcome.events] == ["go", "arrive"]


def test_a_move_to_a_point_of_the_place():
    scene = demo_scene()
    assert call(scene, "move_character", to="the hearth").ok
    assert scene.me.point == "hearth"


def test_a_locked_or_missing_way_is_refused_with_the_ways_there_are():
    scene = demo_scene()
    assert call(scene, "move_character", to="down").error == (
        "That way is not possible: The way down to The Wayfarer's Cellar is locked."
    )
    missing = call(scene, "move_character", to="the crypt")
    assert missing.error.startswith('That way is not possible: You know no way to "crypt"')


def test_travel_time_is_the_engines():
    scene = demo_scene()
    scene.me.location = "east-road"
    outcome = call(scene, "move_character", to="east")
    assert outcome.ok and scene.state.clock.time_of_day == "afternoon"
    assert "clock" in outcome.changes


def test_an_npc_moves_along_a_way_out_of_where_it_is():
    scene = demo_scene()
    outcome = call(scene, "move_character", who="hilda", to="south")
    assert outcome.ok and outcome.result["done"] == "Hilda Brant goes to Market Square."
    assert scene.state.npc_places["hilda"].location == "square"
    assert [n.id for n in scene.npcs()] == []
    assert "hilda" not in [n.id for n in scene.npcs()]


def test_an_npc_never_walks_through_a_locked_or_hidden_way():
    scene = demo_scene()
    outcome = call(scene, "move_character", who="hilda", to="down")
    assert outcome.error == "Hilda Brant cannot go 'down' from where they are."
    assert call(scene, "move_character", who="hilda", to="trapdoor").ok is False


def test_an_unknown_npc_is_named_by_trade_when_it_cannot_go():
    scene = demo_scene()
    outcome = call(scene, "move_character", who="father-aldric", to="moon")
    assert outcome.error == "The priest cannot go 'moon' from where they are."


def test_another_players_character_is_never_moved():
    outcome = call(demo_scene(), "move_character", who="Ada Thorne", to="north")
    assert outcome.error.startswith("Ada Thorne belongs to another player")


def test_a_search_finds_what_the_hidden_roll_reaches_and_only_once_a_turn():
    scene = demo_scene()
    outcome = call(scene, "discover_hidden_point", where="under the rug")
    assert outcome.ok and outcome.result["hidden"] is True
    assert [r.hidden for r in outcome.rolls] == [True]
    total = outcome.rolls[0].total
    found = outcome.result["found"]
    if total >= 14:
        oiled = "A square trapdoor, its hinges freshly oiled."
        assert found == [{"point": "a trapdoor under the rug", "description": oiled}]
        assert "the-wayfarer:trapdoor" in scene.me.discovered
    else:
        assert found == []
    again = call(scene, "discover_hidden_point")
    assert again.error == "The place was already searched this turn."


def test_a_failed_search_names_nothing_hidden():
    scene = demo_scene()
    scene.gm.locations_by_id["the-wayfarer"].hidden_points[0].found_by.dc = 30
    outcome = call(scene, "discover_hidden_point")
    assert outcome.ok and outcome.result["found"] == []
    assert "trapdoor" not in str(outcome.to_dict())


# --- items --------------------------------------------------------------------------------------


def test_an_item_passes_from_the_place_to_the_character_and_on_to_an_npc():
    scene = demo_scene()
    took = call(scene, "transfer_item", item="rope", to="me")
    assert took.ok and took.result["done"] == "Ren Ashby picks up coil of rope."
    assert took.changes["items"]["rope"]["to"] == {"character": "ren"}
    gave = call(scene, "transfer_item", item="coil of rope", to="the innkeeper")
    assert gave.ok and gave.result["done"] == "Ren Ashby gives coil of rope to Hilda Brant."
    assert scene.state.items["rope"] == Holder(npc="hilda")


def test_the_giver_must_hold_the_item():
    scene = demo_scene()
    outcome = call(scene, "transfer_item", item="dagger", to="hilda", **{"from": "hilda"})
    assert outcome.error == "Hilda Brant does not have dagger."


def test_giving_away_what_is_in_hand_empties_the_hand():
    scene = demo_scene()
    assert call(scene, "transfer_item", item="dagger", to="hilda").ok
    assert scene.me.in_hand is None


def test_the_receiver_must_be_present():
    outcome = call(demo_scene(), "transfer_item", item="dagger", to="Ada Thorne")
    assert outcome.error == "Ada Thorne is not here."


def test_a_pawned_item_stays_with_the_pawnbroker():
    scene = demo_scene("ada")
    outcome = call(scene, "transfer_item", item="silver ring", to="me")
    assert outcome.error == "Silver signet ring is pawned: it comes back when the debt is settled."


def store_scene():
    scene = demo_scene()
    scene.me.location = "store"
    return scene


def test_buying_takes_the_shops_price_and_gives_the_item():
    scene = store_scene()
    outcome = call(scene, "buy_item", item="bread")
    assert outcome.ok and scene.me.money == 2
    assert scene.state.items["bread"] == Holder(character="ren")
    assert outcome.changes["money"] == {"from": 3, "to": 2}
    assert outcome.result["done"] == "Ren Ashby buys loaf of bread from the shopkeeper for 1."


def test_a_buyer_who_cannot_pay_gets_nothing():
    outcome = call(store_scene(), "buy_item", item="lantern", shop="osric")
    assert outcome.error == "Hooded lantern costs 5; there are only 3 in the purse."


def test_what_the_shop_does_not_sell_is_refused_with_its_wares():
    outcome = call(store_scene(), "buy_item", item="sword")
    assert outcome.error == "'sword' is not for sale here. For sale: hooded lantern, loaf of bread."


def test_selling_pays_half_the_shops_price_or_half_the_value():
    scene = store_scene()
    outcome = call(scene, "sell_item", item="dagger")
    assert outcome.ok and scene.me.money == 4
    assert scene.state.items["dagger"] == Holder(npc="osric")


def test_nobody_pays_for_something_worthless():
    scene = store_scene()
    scene.state.items["walking-stick"] = Holder(character="ren")
    outcome = call(scene, "sell_item", item="walking stick")
    assert outcome.error == "The shopkeeper will not pay anything for walking stick."


def test_gathering_fills_a_resource_so_much_per_day():
    locations = copy.deepcopy(demo_data()["gameMaster"]["locations"])
    locations[0]["gatherables"] = [{"resource": "herbs", "name": "wild herbs", "perDay": 2}]
    scene = demo_scene(locations=locations)
    first = call(scene, "gather", resource="wild herbs", amount=5)
    assert first.ok and scene.me.resources["herbs"].current == 2
    assert first.result["done"] == "Ren Ashby gathers 2 wild herbs."
    assert call(scene, "gather", resource="herbs").error == (
        "There is no more wild herbs to gather here today."
    )
    assert call(scene, "gather", resource="gold").error == (
        "There is no 'gold' to gather here. Here: wild herbs."
    )


def test_nothing_to_gather_where_the_place_yields_nothing():
    outcome = call(demo_scene(), "gather", resource="herbs")
    assert outcome.error == "There is nothing to gather here."


def test_holding_an_item_puts_it_in_hand():
    scene = demo_scene()
    call(scene, "transfer_item", item="rope", to="me")
    outcome = call(scene, "hold_item", item="rope")
    assert outcome.ok and scene.me.in_hand == "rope"
    assert outcome.changes == {"inHand": {"from": "dagger", "to": "rope"}}
    assert call(scene, "hold_item").result["done"] == "Ren Ashby's hands are empty now."
    assert call(scene, "hold_item", item="lantern").error.startswith("Ren Ashby does not carry")


# --- only what he knows is named (issue 32, finding 7) -----------------------------------------


def test_an_npc_sent_where_he_has_not_been_goes_to_a_place_he_does_not_know():
    scene = demo_scene()
    outcome = call(scene, "move_character", who="ash", to="east")
    assert outcome.ok and scene.state.npc_places["ash"].location == "old-mill"
    unnamed = "The stray dog goes to a place you don't know."
    assert outcome.result["done"] == unnamed
    assert [e.text for e in outcome.events] == [unnamed]  # he reads his own events back
    known = demo_scene()
    known.me.known_places.append("old-mill")
    moved = call(known, "move_character", who="ash", to="east")
    assert moved.result["done"] == "The stray dog goes to The Old Mill."


def test_a_refused_move_never_repeats_a_place_he_has_not_discovered():
    scene = demo_scene()
    for to in ("The Old Mill", "old-mill"):
        npc = call(scene, "move_character", who="hilda", to=to)
        assert npc.error == "Hilda Brant cannot go there from where they are."
        mine = call(scene, "move_character", to=to)
        assert mine.error.startswith("That way is not possible: That is somewhere you don't know")
        assert "mill" not in mine.error.casefold()
    assert call(scene, "move_character", to="east").error.startswith(
        "That way is not possible: There is no way east."  # a direction is no place's name
    )
