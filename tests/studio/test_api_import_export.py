"""API: POST /api/worlds/import (JSON or file) and GET /api/worlds/{id}/export[/worldinfo]."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from engine.world import export_world, load_world
from studio.models import Entry, World
from studio.publishing import publish_world
from studio.worlds import create_item, export_world_json
from tests.factories import full_world_data, world_data
from tests.support.corpus import corpus_dir, fixture_bytes, requires_corpus

IMPORT = "/api/worlds/import"


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def upload(name, data):
    return {"file": SimpleUploadedFile(name, data)}


def test_import_json_creates_a_draft(as_alice, alice):
    data = full_world_data()
    response = as_alice.post(IMPORT, data, "application/json")
    assert response.status_code == 201
    body = response.json()
    world = World.objects.get(pk=body["world"]["id"])
    assert world.owner == alice
    assert export_world_json(world) == export_world(load_world(data))
    assert body["warnings"] == [
        "version: schema 21.1.0 is newer than 20.0.0",
        "futureTopLevel: unknown field kept",
        "entries[1].futureEntryField: unknown field kept",
        "rootComponent.theme: unknown field kept",
        "bgmPlaylist.x-mode: unknown field kept",
        "settings.vendorKnob: unknown field kept",
    ]


def test_import_of_an_invalid_world_is_422_with_paths(as_alice):
    data = world_data()
    data["entries"][0]["section"] = "attic"
    data["variables"][0]["id"] = "Health Points"
    response = as_alice.post(IMPORT, data, "application/json")
    assert response.status_code == 422
    assert response.json() == {
        "detail": "invalid world",
        "errors": [
            "entries[0].section: must be one of system-presets, examples, chat-history, "
            "post-history",
            "variables[0].id: must be kebab-case (lowercase letters, digits and single hyphens)",
        ],
    }
    assert World.objects.count() == 0


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("{oops", "$: body is not valid JSON"),
        ("[1]", "$: must be a JSON object (a WorldDefinition)"),
    ],
)
def test_import_of_a_non_world_body_is_422(as_alice, body, error):
    response = as_alice.post(IMPORT, body, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == [error]


@requires_corpus
def test_import_a_card_png(as_alice):
    path = corpus_dir() / "default_Seraphina.png"
    response = as_alice.post(IMPORT, upload(path.name, path.read_bytes()))
    assert response.status_code == 201, response.content
    world = World.objects.get(pk=response.json()["world"]["id"])
    assert world.name == "Seraphina"
    assert world.entries.filter(section="chat-history").count() == 4


@pytest.mark.parametrize(
    ("name", "version"), [("ferryman_v2.png", "2.0"), ("ferryman_v3.png", "3.0")]
)
def test_import_a_card_png_of_our_own(as_alice, name, version):
    response = as_alice.post(IMPORT, upload(name, fixture_bytes(name)))
    assert response.status_code == 201, response.content
    world = World.objects.get(pk=response.json()["world"]["id"])
    assert world.name == "Orrin the Ferryman"
    lore = world.entries.filter(key__startswith="the-").values_list("key", flat=True)
    assert sorted(lore) == ["the-ferry", "the-lantern", "the-toll"]
    exported = as_alice.get(f"/api/worlds/{world.pk}/export").json()
    assert exported["stCard"]["specVersion"] == version


@pytest.mark.parametrize(
    ("name", "count"), [("the_wend_worldinfo.json", 3), ("the_landing_legacy.json", 2)]
)
def test_import_world_info_of_our_own(as_alice, name, count):
    response = as_alice.post(IMPORT, upload(name, fixture_bytes(name)))
    assert response.status_code == 201, response.content
    world = World.objects.get(pk=response.json()["world"]["id"])
    assert world.entries.count() == count


@requires_corpus
def test_import_world_info_json(as_alice):
    path = corpus_dir() / "Eldoria.json"
    response = as_alice.post(IMPORT, upload(path.name, path.read_bytes()))
    assert response.status_code == 201
    world = World.objects.get(pk=response.json()["world"]["id"])
    assert world.entries.count() == 4


def test_import_an_unusable_file_is_422(as_alice):
    response = as_alice.post(IMPORT, upload("notes.txt", b"just some notes"))
    assert response.status_code == 422
    body = response.json()
    assert body["errors"] == [f"file: {body['detail']}"]
    assert World.objects.count() == 0


def test_import_an_invalid_world_file_lists_its_errors(as_alice):
    data = world_data()
    data["rules"][0]["priority"] = "urgent"
    response = as_alice.post(IMPORT, upload("w.json", json.dumps(data).encode()))
    assert response.status_code == 422
    assert response.json()["errors"] == [
        "rules[0].priority: input should be a valid integer, unable to parse string as an integer"
    ]


def test_import_multipart_without_a_file_is_422(as_alice):
    response = as_alice.post(IMPORT, {"other": "x"})
    assert response.status_code == 422
    assert response.json()["errors"] == ["file: is required"]


def test_import_needs_auth(client, db):
    assert client.post(IMPORT, world_data(), "application/json").status_code == 401
    assert World.objects.count() == 0


def test_import_is_post_only(as_alice):
    assert as_alice.get(IMPORT).status_code == 405


# --- export --------------------------------------------------------------------------------


def test_export_returns_the_draft(as_alice, world):
    response = as_alice.get(f"/api/worlds/{world.pk}/export")
    assert response.status_code == 200
    assert response.json() == export_world_json(world)


def test_export_of_a_version_is_frozen(as_alice, world):
    version = publish_world(world)
    create_item(world, Entry, {"id": "later"})
    response = as_alice.get(f"/api/worlds/{world.pk}/export?version=1")
    assert response.json() == version.definition
    missing = as_alice.get(f"/api/worlds/{world.pk}/export?version=9")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "version not found", "errors": []}


def test_others_export_versions_not_the_draft(client, bob, world):
    version = publish_world(world)
    client.force_login(bob)
    draft = client.get(f"/api/worlds/{world.pk}/export")
    assert draft.status_code == 403
    assert draft.json()["detail"] == "only the owner can read the draft; export a version"
    assert client.get(f"/api/worlds/{world.pk}/export?version=1").json() == version.definition


def test_export_of_anothers_draft_is_404(client, charlie, world):
    client.force_login(charlie)
    assert client.get(f"/api/worlds/{world.pk}/export").status_code == 404
    assert client.get(f"/api/worlds/{world.pk}/export/worldinfo").status_code == 404


def test_export_needs_auth(client, world):
    assert client.get(f"/api/worlds/{world.pk}/export").status_code == 401


def test_export_worldinfo(as_alice, world):
    create_item(world, Entry, {"id": "dunes", "section": "chat-history", "keywords": ["dune"]})
    response = as_alice.get(f"/api/worlds/{world.pk}/export/worldinfo")
    assert response.status_code == 200
    entries = list(response.json()["entries"].values())
    assert [e["key"] for e in entries] == [["dune"]]


def test_export_of_an_import_round_trips_through_the_api(as_alice):
    data = full_world_data()
    created = as_alice.post(IMPORT, data, "application/json").json()
    exported = as_alice.get(f"/api/worlds/{created['world']['id']}/export").json()
    assert exported == export_world(load_world(data))
