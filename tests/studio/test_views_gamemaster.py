"""The game-master editor's pages: overview and settings, on/off, raw JSON, and the lists
(locations, items, NPCs…) with their forms, rows, pickers and the linter's refusals."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from engine.gm.world import GameMaster
from studio.forms.gamemaster import Catalog, SettingsForm
from studio.gamemaster import game_master_data
from studio.models import Variable
from studio.views.gamemaster.nouns import NOUNS, NOUNS_BY_SLUG
from studio.views.gamemaster.records import make_form
from studio.worlds import export_world_json, import_world
from tests.factories import world_data
from tests.studio.gm_helpers import as_post, demo_data, small_block
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


@pytest.fixture
def gm_world(alice: Any) -> Any:
    """Alice's draft with a small gameMaster block (two joined places, Mara, Tom)."""
    return import_world(alice, world_data(gameMaster=small_block()))


def url(name: str, world: Any, *args: Any) -> str:
    return reverse(f"studio:{name}", args=[world.pk, *args])


def text(response: Any) -> str:
    return unescape(re.sub(r"\s+", " ", response.content.decode()))


def form_post(world: Any, slug: str, ref: str | None = None, **changes: str) -> Any:
    """The record's form as the browser sends it, with ``changes`` typed in."""
    block = game_master_data(world) or {}
    record = next((r for r in block.get(slug, []) if r.get("id", r.get("item")) == ref), {})
    data = as_post(make_form(world, NOUNS_BY_SLUG[slug], record=record))
    for key, value in changes.items():
        data[re.sub(r"^([A-Za-z]+)__(\d+)__(\w+)$", r"\1-\2-\3", key)] = value
    return data


# --- overview, on and off ------------------------------------------------------------------


def test_a_world_without_the_block_offers_to_turn_it_on(client, alice, world):
    response = login(client, alice).get(url("gm", world))
    assert response.status_code == 200
    assert "Turn on the game master" in text(response)
    assert 'aria-current="page">Game master</a>' in response.content.decode()


def test_turning_it_on_gives_an_empty_block_and_redirects(client, alice, world):
    response = login(client, alice).post(url("gm_enable", world))
    assert response.status_code == 302
    assert response["Location"] == url("gm", world)
    block = game_master_data(world.__class__.objects.get(pk=world.pk))
    assert block == GameMaster().model_dump(mode="json", by_alias=True)
    assert block["settings"]["toolCap"] == 8


def test_turning_it_on_by_htmx_swaps_the_overview_in(client, alice, world):
    response = login(client, alice).post(url("gm_enable", world), **hx("workspace"))
    assert is_partial(response)
    assert "Settings and clock" in text(response)
    assert response["HX-Trigger"] == '{"worldChanged": {}}'


def test_turning_it_off_removes_the_block_and_exports_a_plain_world(client, alice, gm_world):
    response = login(client, alice).post(url("gm_disable", gm_world))
    assert response.status_code == 302
    gm_world.refresh_from_db()
    assert "gameMaster" not in export_world_json(gm_world)


def test_the_overview_shows_settings_counts_and_the_map(client, alice, gm_world):
    page = text(login(client, alice).get(url("gm", gm_world)))
    assert 'name="settings__tool_cap" value="8"' in page
    assert 'Locations</a> <span class="badge">2</span>' in page
    assert 'data-from="hall" data-to="yard" data-direction="north"' in page
    assert "No broken references." in page


def test_settings_and_clock_are_saved(client, alice, gm_world):
    data = form_post_settings(gm_world, settings__tool_cap="5", clock__time_of_day="night")
    response = login(client, alice).post(url("gm", gm_world), data)
    assert response.status_code == 302
    gm_world.refresh_from_db()
    block = game_master_data(gm_world)
    assert block["settings"]["toolCap"] == 5
    assert block["clock"] == {"day": 1, "timeOfDay": "night"}


def form_post_settings(world: Any, **changes: str) -> dict[str, Any]:
    """The overview's settings form as the browser sends it, with ``changes`` typed in."""
    form = SettingsForm(catalog=Catalog(), record=game_master_data(world))
    return {**as_post(form), **changes}


def test_bad_settings_rerender_with_the_error(client, alice, gm_world):
    data = form_post_settings(gm_world, settings__tool_cap="0")
    response = login(client, alice).post(url("gm", gm_world), data, **hx("workspace"))
    assert response.status_code == 200
    assert is_partial(response)
    assert errors_of(response) == ["Ensure this value is greater than or equal to 1."]
    assert game_master_data(gm_world)["settings"]["toolCap"] == 8


def test_the_raw_json_saves_the_whole_block(client, alice, gm_world):
    block = small_block()
    block["locations"][0]["description"] = "Rushes on the floor."
    login(client, alice)
    response = client.post(url("gm_json", gm_world), {"block": json.dumps(block)})
    assert response.status_code == 302
    gm_world.refresh_from_db()
    assert game_master_data(gm_world)["locations"][0]["description"] == "Rushes on the floor."


def test_the_raw_json_refuses_a_broken_reference_naming_the_path(client, alice, gm_world):
    block = small_block()
    block["locations"][0]["exits"][0]["to"] = "moon"
    login(client, alice)
    response = client.post(url("gm_json", gm_world), {"block": json.dumps(block)})
    assert response.status_code == 200
    assert errors_of(response) == ["gameMaster.locations[0].exits[0].to: unknown location 'moon'"]
    assert game_master_data(gm_world)["locations"][0]["exits"][0]["to"] == "yard"


def test_the_raw_json_refuses_a_clue_anchored_to_nothing(client, alice, gm_world):
    block = small_block()
    block["clues"] = [{"id": "note", "name": "A note", "anchor": {}}]
    login(client, alice)
    response = client.post(url("gm_json", gm_world), {"block": json.dumps(block)})
    assert errors_of(response) == [
        "gameMaster.clues[0].anchor: must name exactly one of location or npc"
    ]


# --- the checklist on every route --------------------------------------------------------


def routes(world: Any) -> list[tuple[str, str]]:
    """(method, url) of every game-master route of ``world``."""
    found = [("GET", url("gm", world)), ("POST", url("gm_enable", world))]
    found += [("POST", url("gm_disable", world)), ("GET", url("gm_json", world))]
    for noun in NOUNS:
        found += [("GET", url(noun.names["list"].split(":")[1], world))]
        found += [("GET", url(noun.names["new"].split(":")[1], world))]
    found += [("GET", url("gm_locations_edit", world, "hall"))]
    found += [("POST", url("gm_locations_delete", world, "hall"))]
    return found


def test_every_route_needs_login(client, gm_world):
    for method, address in routes(gm_world):
        response = client.generic(method, address)
        assert response.status_code == 302, address
        assert response["Location"].startswith("/accounts/login/"), address


def test_another_users_world_is_404(client, charlie, gm_world):
    login(client, charlie)
    for method, address in routes(gm_world):
        assert client.generic(method, address).status_code == 404, address


def test_a_published_world_is_read_only_for_others(client, bob, gm_world):
    publish(gm_world)
    login(client, bob)
    for method, address in routes(gm_world):
        assert client.generic(method, address).status_code == 403, address
    assert game_master_data(gm_world)["locations"][0]["id"] == "hall"


def test_wrong_methods_are_refused(client, alice, gm_world):
    login(client, alice)
    assert client.get(url("gm_enable", gm_world)).status_code == 405
    assert client.get(url("gm_disable", gm_world)).status_code == 405
    assert client.get(url("gm_locations_delete", gm_world, "hall")).status_code == 405
    assert client.post(url("gm_locations", gm_world)).status_code == 405
    assert client.put(url("gm", gm_world)).status_code == 405


def test_an_unknown_record_is_404(client, alice, gm_world):
    login(client, alice)
    assert client.get(url("gm_locations_edit", gm_world, "moon")).status_code == 404
    assert client.post(url("gm_npcs_delete", gm_world, "moon")).status_code == 404


def test_the_lists_redirect_to_the_overview_until_it_is_on(client, alice, world):
    response = login(client, alice).get(url("gm_locations", world))
    assert response.status_code == 302
    assert response["Location"] == url("gm", world)


def test_a_list_page_takes_a_fixed_number_of_queries(client, alice, django_assert_num_queries):
    world = import_world(alice, demo_data())
    login(client, alice)
    client.get(url("gm_npcs", world))  # warm up the session and the templates
    with django_assert_num_queries(6):
        response = client.get(url("gm_npcs", world))
    assert "Hilda Brant" in text(response)


# --- locations, exits and the graph --------------------------------------------------------


def test_a_new_location_is_created_with_an_id_from_its_name(client, alice, gm_world):
    data = form_post(gm_world, "locations", name="The Old Well", description="Deep.")
    data.update({"exits-0-direction": "east", "exits-0-to": "yard", "exits-0-locked": "on"})
    response = login(client, alice).post(url("gm_locations_new", gm_world), data)
    assert response.status_code == 302
    assert response["Location"] == url("gm_locations_edit", gm_world, "the-old-well")
    gm_world.refresh_from_db()
    well = game_master_data(gm_world)["locations"][2]
    assert (well["id"], well["description"]) == ("the-old-well", "Deep.")
    assert well["exits"] == [
        {
            "direction": "east",
            "to": "yard",
            "locked": True,
            "hidden": False,
            "foundBy": None,
            "travel": 0,
            "carriesSound": False,
        }
    ]


def test_an_htmx_save_returns_the_workspace_with_the_new_edge(client, alice, gm_world):
    data = form_post(gm_world, "locations", "hall")
    data.update({"exits-1-direction": "down", "exits-1-to": "yard", "exits-1-hidden": "on"})
    response = login(client, alice).post(
        url("gm_locations_edit", gm_world, "hall"), data, **hx("workspace")
    )
    page = text(response)
    assert is_partial(response)
    assert "Saved." in page
    assert (
        '<g class="gm-edge hidden" data-from="hall" data-to="yard" data-direction="down">' in page
    )
    assert response["HX-Push-Url"] == url("gm_locations_edit", gm_world, "hall")


def test_an_exit_to_a_missing_location_is_refused_on_its_field(client, alice, gm_world):
    data = form_post(gm_world, "locations", "hall", exits__0__to="moon")
    response = login(client, alice).post(
        url("gm_locations_edit", gm_world, "hall"), data, **hx("workspace")
    )
    assert response.status_code == 200
    assert errors_of(response) == ["unknown location 'moon'"]
    assert 'id="field-exits-0-to"' in response.content.decode()
    assert game_master_data(gm_world)["locations"][0]["exits"][0]["to"] == "yard"


def test_a_bad_value_in_a_row_stays_on_its_row(client, alice, gm_world):
    data = form_post(gm_world, "locations", "hall", exits__0__travel="99")
    response = login(client, alice).post(url("gm_locations_edit", gm_world, "hall"), data)
    assert errors_of(response) == ["Ensure this value is less than or equal to 8."]


def test_deleting_a_location_others_lead_to_is_refused_with_the_paths(client, alice, gm_world):
    response = login(client, alice).post(url("gm_locations_delete", gm_world, "yard"))
    assert response.status_code == 409
    page = text(response)
    assert "Not saved: the world would break here:" in page
    assert "gameMaster.locations[0].exits[0].to: unknown location 'yard'" in page
    assert "gameMaster.characters[0].location: unknown location 'yard'" in page
    assert len(game_master_data(gm_world)["locations"]) == 2


def test_deleting_an_unused_record_redirects_to_the_list(client, alice, gm_world):
    response = login(client, alice).post(url("gm_items_delete", gm_world, "ladle"))
    assert response.status_code == 302
    assert response["Location"] == url("gm_items", gm_world)
    gm_world.refresh_from_db()
    assert game_master_data(gm_world)["items"] == []


def test_deleting_by_htmx_returns_the_empty_form(client, alice, gm_world):
    response = login(client, alice).post(
        url("gm_items_delete", gm_world, "ladle"), **hx("workspace")
    )
    assert is_partial(response)
    assert "Deleted." in text(response)
    assert "New item" in text(response)


def test_a_row_ticked_delete_is_removed(client, alice, gm_world):
    data = form_post(gm_world, "locations", "hall", exits__0__DELETE="on")
    login(client, alice).post(url("gm_locations_edit", gm_world, "hall"), data)
    gm_world.refresh_from_db()
    assert game_master_data(gm_world)["locations"][0]["exits"] == []


# --- items, NPCs, clues, shops -------------------------------------------------------------


def test_an_items_place_is_picked_and_stored_as_its_holder(client, alice, gm_world):
    data = form_post(gm_world, "items", "ladle", at="location:yard")
    login(client, alice).post(url("gm_items_edit", gm_world, "ladle"), data)
    gm_world.refresh_from_db()
    assert game_master_data(gm_world)["items"][0]["at"] == {
        "location": "yard",
        "point": None,
        "npc": None,
        "character": None,
    }


def test_the_pickers_offer_the_blocks_records(client, alice, gm_world):
    page = login(client, alice).get(url("gm_items_edit", gm_world, "ladle")).content.decode()
    assert '<option value="npc:mara" selected>🧑 Mara (mara)</option>' in page
    assert '<option value="location:hall">📍 The Hall (hall)</option>' in page
    assert '<option value="character:tom">🎭 Tom (tom)</option>' in page


def test_an_item_sold_in_a_shop_and_held_elsewhere_is_in_two_places(client, alice, gm_world):
    data = form_post(gm_world, "shops", name="Mara's pot", npc="mara", location="hall")
    data.update({"stock-0-item": "ladle", "stock-0-price": "2"})
    login(client, alice).post(url("gm_shops_new", gm_world), data)
    item = form_post(gm_world, "items", "ladle", at="character:tom")
    response = client.post(url("gm_items_edit", gm_world, "ladle"), item)
    assert (
        "gameMaster.shops[0].stock[0].item: 'ladle' is in two places: sold here, held "
        "elsewhere" in text(response)
    )


def test_an_npcs_secret_disclosures_and_trust_are_saved(client, alice, gm_world):
    data = form_post(
        gm_world,
        "npcs",
        "mara",
        secret__tells_to="a priest",
        disclosure_friend="The lord was cruel.",
        trustRows__0__character="tom",
        trustRows__0__level="wary",
    )
    login(client, alice).post(url("gm_npcs_edit", gm_world, "mara"), data)
    gm_world.refresh_from_db()
    mara = game_master_data(gm_world)["npcs"][0]
    assert mara["secret"] == {
        "text": "Mara poisoned the old lord.",
        "tellsTo": "a priest",
        "revealAtTrust": "ally",
    }
    assert mara["disclosures"] == {"friend": "The lord was cruel."}
    assert mara["trust"] == {"tom": "wary"}


def test_an_npc_nowhere_is_refused_with_the_linters_message(client, alice, gm_world):
    data = form_post(gm_world, "npcs", name="Ghost")
    response = login(client, alice).post(url("gm_npcs_new", gm_world), data)
    assert errors_of(response) == ["is nowhere: give it a location, home, fixedPlace or schedule"]


def test_a_clue_needs_an_anchor(client, alice, gm_world):
    data = form_post(gm_world, "clues", name="Footprints")
    response = login(client, alice).post(url("gm_clues_new", gm_world), data)
    assert errors_of(response) == ["This field is required."]
    data["anchor"] = "npc:mara"
    data.update({"requires-0-type": "trust", "requires-0-npc": "mara"})
    data["requires-0-at_least"] = "friend"
    assert client.post(url("gm_clues_new", gm_world), data).status_code == 302
    gm_world.refresh_from_db()
    clue = game_master_data(gm_world)["clues"][0]
    assert clue["anchor"] == {"location": None, "npc": "mara"}
    assert clue["requires"] == [{"type": "trust", "npc": "mara", "atLeast": "friend"}]


def test_a_characters_sheet_is_saved_public_and_full(client, alice, gm_world):
    data = form_post(
        gm_world,
        "characters",
        "tom",
        public__appearance="Tall.",
        full__klass="bard",
        full__secrets="Owes the duke.\nFled the war.",
        ability_charisma="16",
        resourceRows__0__name="songs",
        resourceRows__0__current="2",
        resourceRows__0__max="3",
    )
    login(client, alice).post(url("gm_characters_edit", gm_world, "tom"), data)
    gm_world.refresh_from_db()
    tom = game_master_data(gm_world)["characters"][0]
    assert tom["public"]["appearance"] == "Tall."
    assert tom["full"]["class"] == "bard"
    assert tom["full"]["secrets"] == ["Owes the duke.", "Fled the war."]
    assert tom["abilities"]["charisma"] == 16
    assert tom["resources"] == {"songs": {"current": 2, "max": 3}}


@pytest.mark.parametrize("slug", [noun.slug for noun in NOUNS])
def test_saving_every_demo_record_untouched_changes_nothing(client, alice, slug):
    world = import_world(alice, demo_data())
    before = export_world_json(world)
    login(client, alice)
    for record in game_master_data(world)[slug]:
        ref = NOUNS_BY_SLUG[slug].ref(record)
        response = client.post(url(f"gm_{slug}_edit", world, ref), form_post(world, slug, ref))
        assert response.status_code == 302, (ref, errors_of(response))
    world.refresh_from_db()
    assert export_world_json(world) == before


# --- problems already there -------------------------------------------------------------


def test_a_problem_already_there_is_listed_with_a_link_and_blocks_nothing(client, alice):
    block = small_block()
    condition = {"type": "condition", "variableId": "health", "operator": "gt", "value": 3}
    block["clues"] = [
        {"id": "scar", "name": "A scar", "anchor": {"npc": "mara"}, "requires": [condition]}
    ]
    world = import_world(alice, world_data(gameMaster=block))
    Variable.objects.filter(world=world, key="health").delete()
    page = text(login(client, alice).get(url("gm_clues", world)))
    link = url("gm_clues_edit", world, "scar") + "#id_requires-0-variable_id"
    assert (
        f'<a href="{link}"><code>gameMaster.clues[0].requires[0].variableId</code></a> '
        '<span class="muted">(scar)</span> <span class="lint-message">unknown variable '
        "'health'</span>" in page
    )
    response = client.post(url("gm_items_edit", world, "ladle"), form_post(world, "items", "ladle"))
    assert response.status_code == 302


def test_creator_text_is_escaped_everywhere(client, alice):
    attack = '<script>alert(1)</script>"><img src=x onerror=alert(1)>'
    block = small_block()
    block["locations"][0]["name"] = attack
    block["locations"][0]["description"] = attack
    block["npcs"][0]["secret"]["text"] = attack
    world = import_world(alice, world_data(gameMaster=block))
    login(client, alice)
    for address in (
        url("gm", world),
        url("gm_locations", world),
        url("gm_json", world),
        url("gm_locations_edit", world, "hall"),
        url("gm_npcs_edit", world, "mara"),
    ):
        html = client.get(address).content.decode()
        assert "<script>alert" not in html, address
        assert "<img src=x" not in html, address
