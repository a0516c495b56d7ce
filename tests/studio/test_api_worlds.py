"""API: /api/worlds — list, create, get, change, delete, replace content, settings."""

from __future__ import annotations

import pytest

from studio.models import World
from studio.publishing import publish_world
from studio.worlds import export_world_json
from tests.factories import full_world_data, make_world


def url(world=None, tail=""):
    return f"/api/worlds/{world.pk}{tail}" if world is not None else "/api/worlds"


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def as_bob(client, bob):
    client.force_login(bob)
    return client


def test_list_shows_only_my_worlds(as_alice, world, bob, django_assert_num_queries):
    for i in range(3):
        make_world(world.owner, name=f"More {i}", id="")
    publish_world(make_world(bob, name="Bob's", id=""))
    with django_assert_num_queries(3):  # session, user, worlds (+ owner, version joined)
        response = as_alice.get(url())
    assert response.status_code == 200
    names = {w["name"] for w in response.json()}
    assert names == {"The Salt Road", "More 0", "More 1", "More 2"}


def test_list_needs_auth(client, world):
    response = client.get(url())
    assert response.status_code == 401
    assert response.json() == {
        "detail": "authentication required (session or Bearer token)",
        "errors": [],
    }


def test_create_makes_an_empty_draft(as_alice, alice):
    response = as_alice.post(url(), {"name": "Fen", "language": "es"}, "application/json")
    assert response.status_code == 201
    body = response.json()
    assert (body["name"], body["language"], body["owner"], body["published"]) == (
        "Fen",
        "es",
        "alice",
        False,
    )
    assert World.objects.get(pk=body["id"]).owner == alice


def test_create_rejects_bad_fields_with_paths(as_alice):
    response = as_alice.post(url(), {"name": "", "editorMode": "x"}, "application/json")
    assert response.status_code == 422
    assert response.json() == {
        "detail": "invalid world",
        "errors": [
            "name: string should have at least 1 character",
            "editorMode: must be one of simple, advanced",
        ],
    }
    assert World.objects.count() == 0


def test_create_rejects_a_non_object_body(as_alice):
    response = as_alice.post(url(), [1, 2], "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["$: input should be a valid dictionary"]


def test_get_returns_the_header(as_alice, world):
    response = as_alice.get(url(world))
    assert response.status_code == 200
    assert response.json()["uid"] == world.uid


def test_another_users_draft_is_404(client, charlie, world):
    client.force_login(charlie)
    for method in ("get", "patch", "delete"):
        response = getattr(client, method)(url(world), {}, "application/json")
        assert response.status_code == 404
        assert response.json() == {"detail": "world not found", "errors": []}


def test_a_published_world_is_read_only_for_others(as_bob, world):
    publish_world(world)
    assert as_bob.get(url(world)).status_code == 200
    response = as_bob.patch(url(world), {"name": "Mine now"}, "application/json")
    assert response.status_code == 403
    assert response.json() == {"detail": "this world is read-only for you", "errors": []}
    assert as_bob.delete(url(world)).status_code == 403


def test_patch_changes_the_header(as_alice, world):
    response = as_alice.patch(url(world), {"description": "Wetter"}, "application/json")
    assert response.status_code == 200
    world.refresh_from_db()
    assert world.description == "Wetter"


def test_patch_rejects_unknown_fields(as_alice, world):
    response = as_alice.patch(url(world), {"entries": []}, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["entries: unknown field"]


def test_delete_removes_the_world(as_alice, world):
    response = as_alice.delete(url(world))
    assert response.status_code == 204
    assert not World.objects.filter(pk=world.pk).exists()


def test_wrong_method_is_405(as_alice, world):
    assert as_alice.put(url(world), {}, "application/json").status_code == 405
    assert as_alice.delete(url()).status_code == 405
    assert as_alice.get(url(world, "/publish")).status_code == 405


def test_put_content_replaces_the_draft(as_alice, world):
    response = as_alice.put(url(world, "/content"), full_world_data(), "application/json")
    assert response.status_code == 200
    exported = export_world_json(world)
    assert [e["id"] for e in exported["entries"]] == ["narrator", "dunes"]
    assert exported["id"] == world.uid


def test_put_content_with_an_invalid_world_changes_nothing(as_alice, world):
    data = full_world_data()
    data["rules"][0]["trigger"]["type"] = "sometimes"
    before = export_world_json(world)
    response = as_alice.put(url(world, "/content"), data, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == [
        "rules[0].trigger: unknown type 'sometimes'; must be one of variable-crossed, "
        "state-change, turn-count, session-start, keyword, ai-keyword, every-turn, action, manual"
    ]
    assert export_world_json(world) == before


def test_settings_are_read_and_patched(as_alice, world):
    assert as_alice.get(url(world, "/settings")).json()["temperature"] == 1.0
    response = as_alice.patch(url(world, "/settings"), {"topP": 0.5}, "application/json")
    assert response.status_code == 200
    assert response.json()["topP"] == 0.5


def test_settings_errors_name_the_field(as_alice, world):
    response = as_alice.patch(url(world, "/settings"), {"maxTokens": 0}, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["maxTokens: input should be greater than or equal to 1"]


def test_settings_of_a_published_world_are_read_only_for_others(as_bob, world):
    publish_world(world)
    response = as_bob.patch(url(world, "/settings"), {"topP": 0.5}, "application/json")
    assert response.status_code == 403


def test_a_world_with_play_sessions_cannot_be_deleted(as_alice, world):
    from django.apps import apps

    version = publish_world(world)
    Session = apps.get_model("play", "Session")
    Session.objects.create(world=world, world_version=version, owner=world.owner)
    response = as_alice.delete(url(world))
    assert response.status_code == 409
    assert response.json() == {
        "detail": "players have sessions on this world's published versions; unpublish it instead",
        "errors": [],
    }
    assert World.objects.filter(pk=world.pk).exists()
