"""API: the draft's whole gameMaster block (GET/PUT/DELETE /api/worlds/{id}/game-master)."""

from __future__ import annotations

import json

import pytest

from engine.gm.world import GameMaster
from engine.world import export_world, load_world
from studio.gamemaster import game_master_data
from studio.publishing import publish_world
from studio.tokens import create_token
from studio.worlds import export_world_json, import_world
from tests.factories import make_token, make_world, world_data
from tests.studio.gm_helpers import demo_data, small_block

pytestmark = pytest.mark.django_db


def path(world) -> str:
    return f"/api/worlds/{world.pk}/game-master"


def put(client, world, block, **headers):
    return client.put(path(world), json.dumps(block), "application/json", **headers)


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def test_a_world_without_the_block_reads_null(as_alice, world):
    response = as_alice.get(path(world))
    assert response.status_code == 200
    assert response.json() is None


def test_put_stores_the_block_normalised_and_get_reads_it_back(as_alice, world):
    response = put(as_alice, world, small_block())
    assert response.status_code == 200
    expected = GameMaster.model_validate(small_block()).model_dump(mode="json", by_alias=True)
    assert response.json() == expected
    assert as_alice.get(path(world)).json() == expected
    world.refresh_from_db()
    assert export_world_json(world)["gameMaster"] == expected


def test_a_bad_value_is_422_with_the_field_path(as_alice, world):
    block = small_block()
    block["locations"][0]["exits"][0]["direction"] = "sideways"
    response = put(as_alice, world, block)
    assert response.status_code == 422
    assert response.json() == {
        "detail": "invalid world",
        "errors": [
            "gameMaster.locations[0].exits[0].direction: must be one of north, south, east, "
            "west, northeast, northwest, southeast, southwest, up, down, in, out"
        ],
    }
    assert game_master_data(world) is None


def test_the_linter_refuses_an_exit_to_a_missing_location(as_alice, world):
    block = small_block()
    block["locations"][0]["exits"][0]["to"] = "moon"
    response = put(as_alice, world, block)
    assert response.status_code == 422
    assert response.json()["errors"] == [
        "gameMaster.locations[0].exits[0].to: unknown location 'moon'"
    ]


def test_the_linter_refuses_an_item_in_two_places(as_alice, world):
    block = small_block()
    block["items"].append({"id": "ladle", "name": "another ladle", "at": {"location": "yard"}})
    response = put(as_alice, world, block)
    assert response.json()["errors"] == [
        "gameMaster.items[1]: duplicate id 'ladle' (first at gameMaster.items[0]) "
        "(an item is in one place only)"
    ]


def test_a_clue_anchored_to_nothing_is_refused(as_alice, world):
    block = {**small_block(), "clues": [{"id": "note", "name": "A note", "anchor": {}}]}
    response = put(as_alice, world, block)
    assert response.json()["errors"] == [
        "gameMaster.clues[0].anchor: must name exactly one of location or npc"
    ]


def test_delete_removes_the_block(as_alice, alice):
    world = import_world(alice, world_data(gameMaster=small_block()))
    assert as_alice.delete(path(world)).status_code == 204
    assert as_alice.get(path(world)).json() is None


def test_others_get_404_on_a_draft_and_403_on_a_published_world(client, bob, charlie, alice):
    world = import_world(alice, world_data(gameMaster=small_block()))
    client.force_login(charlie)
    assert client.get(path(world)).status_code == 404
    assert put(client, world, small_block()).status_code == 404
    publish_world(world)
    client.force_login(bob)
    for response in (client.get(path(world)), put(client, world, {}), client.delete(path(world))):
        assert response.status_code == 403
    assert game_master_data(world) is not None


def test_anonymous_is_401(client, world):
    assert client.get(path(world)).status_code == 401
    assert put(client, world, small_block()).status_code == 401


def test_a_read_token_reads_but_cannot_put(client, alice):
    world = import_world(alice, world_data(gameMaster=small_block()))
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {create_token(alice, 'r', scope='read')[1]}"}
    assert client.get(path(world), **bearer).json()["npcs"][0]["id"] == "mara"
    assert put(client, world, {}, **bearer).status_code == 403
    writer = {"HTTP_AUTHORIZATION": f"Bearer {make_token(alice)}"}
    assert put(client, world, small_block(), **writer).status_code == 200


def test_the_demo_block_round_trips_through_the_api(as_alice, alice):
    world = make_world(alice)
    block = demo_data()["gameMaster"]
    assert put(as_alice, world, block).status_code == 200
    assert as_alice.get(path(world)).json() == export_world(load_world(demo_data()))["gameMaster"]
