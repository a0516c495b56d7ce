"""API: GET /api/worlds/{id}/export/card, the import report, GET /api/worlds/{id}/lint."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from engine.interop import read_png_card
from studio.models import Entry, World
from studio.publishing import publish_world
from studio.worlds import create_item
from tests.support.corpus import fixture_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def test_export_card_png_v2_by_default(as_alice, world):
    response = as_alice.get(f"/api/worlds/{world.pk}/export/card")

    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response["Content-Disposition"] == 'attachment; filename="the-salt-road.v2.png"'
    assert read_png_card(response.content)["data"]["name"] == "The Salt Road"


@pytest.mark.parametrize("spec", ["v2", "v3"])
def test_export_card_json(as_alice, world, spec):
    response = as_alice.get(f"/api/worlds/{world.pk}/export/card?format=json&spec={spec}")

    body = response.json()
    assert body["spec"] == {"v2": "chara_card_v2", "v3": "chara_card_v3"}[spec]
    assert body["data"]["extensions"]["fabula"]["world"]["variables"][0]["id"] == "health"


def test_export_card_refuses_an_unknown_format_with_422(as_alice, world):
    response = as_alice.get(f"/api/worlds/{world.pk}/export/card?format=gif")

    assert response.status_code == 422
    assert response.json()["errors"] == ["format: input should be 'png' or 'json'"]


def test_export_card_checks_access(client, bob, charlie, world):
    url = f"/api/worlds/{world.pk}/export/card"
    assert client.get(url).status_code == 401
    client.force_login(charlie)
    assert client.get(url).status_code == 404
    publish_world(world)
    client.force_login(bob)
    assert client.get(url).status_code == 403


def test_import_returns_its_report(as_alice):
    upload = SimpleUploadedFile("ferryman_v3.png", fixture_bytes("ferryman_v3.png"))

    response = as_alice.post("/api/worlds/import", {"file": upload})

    assert response.status_code == 201
    assert response.json()["report"] == [
        {"kind": "mapped", "message": "card fields → 6 entries: description, personality, "
         "scenario, first_mes, alternate_greetings, mes_example"},
        {"kind": "mapped", "message": "lorebook → 3 entries (2 keyword-triggered, 1 always sent)"},
        {"kind": "mapped", "message": "creator notes → description, creator → author, tags → "
         "custom tags"},
        {"kind": "mapped", "message": "the card's picture → the world's portrait"},
    ]  # fmt: skip
    world = World.objects.get(pk=response.json()["world"]["id"])
    assert world.portrait  # re-encoded and stored like an upload


def test_import_of_world_json_reports_unknown_fields_in_one_line(as_alice):
    data = json.loads(fixture_bytes("the_wend_worldinfo.json"))
    data["entries"]["0"]["probability"] = 10
    data["entries"]["1"]["probability"] = 20

    upload = SimpleUploadedFile("wend.json", json.dumps(data).encode())
    report = as_alice.post("/api/worlds/import", {"file": upload}).json()["report"]

    assert report[-1] == {
        "kind": "attention",
        "message": "2 entries fire only part of the time in SillyTavern (probability); Fabula "
        "fires them every time ('The ferry', 'The toll')",
    }


def test_lint_lists_the_findings_of_the_draft(as_alice, world):
    create_item(world, Entry, {"id": "hello", "role": "greeting", "content": ""})

    response = as_alice.get(f"/api/worlds/{world.pk}/lint")

    assert response.json() == [
        {
            "severity": "error",
            "code": "empty-greeting",
            "path": "entries[1].content",
            "message": "the greeting is empty",
        }
    ]
