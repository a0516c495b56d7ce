"""API: publish, unpublish, versions, fork and the gallery."""

from __future__ import annotations

import pytest

from studio.api import GALLERY_PAGE_SIZE
from studio.models import World, WorldVersion
from studio.publishing import publish_world
from studio.worlds import export_world_json
from tests.factories import make_world


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def test_publish_creates_a_version(as_alice, world):
    response = as_alice.post(
        f"/api/worlds/{world.pk}/publish", {"changelog": "First"}, "application/json"
    )
    assert response.status_code == 201
    body = response.json()
    assert (body["number"], body["changelog"], body["world"]) == (1, "First", world.pk)
    version = WorldVersion.objects.get(pk=body["id"])
    assert version.definition == export_world_json(world)


def test_publish_without_a_body(as_alice, world):
    assert as_alice.post(f"/api/worlds/{world.pk}/publish").status_code == 201
    again = as_alice.post(f"/api/worlds/{world.pk}/publish")
    assert again.json()["number"] == 2


def test_publish_rejects_a_long_changelog(as_alice, world):
    url = f"/api/worlds/{world.pk}/publish"
    response = as_alice.post(url, {"changelog": "x" * 501}, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["changelog: string should have at most 500 characters"]
    assert not world.versions.exists()


def test_publish_checks_access(client, bob, charlie, world):
    client.force_login(charlie)
    assert client.post(f"/api/worlds/{world.pk}/publish").status_code == 404
    publish_world(world)
    client.force_login(bob)
    assert client.post(f"/api/worlds/{world.pk}/publish").status_code == 403
    assert client.post(f"/api/worlds/{world.pk}/unpublish").status_code == 403
    client.logout()
    assert client.post(f"/api/worlds/{world.pk}/publish").status_code == 401


def test_unpublish_hides_the_world_and_keeps_versions(as_alice, world):
    publish_world(world)
    response = as_alice.post(f"/api/worlds/{world.pk}/unpublish")
    assert response.status_code == 200
    assert response.json()["published"] is False
    assert as_alice.get("/api/gallery").json()["count"] == 0
    assert len(as_alice.get(f"/api/worlds/{world.pk}/versions").json()) == 1


def test_versions_list_newest_first(as_alice, world):
    publish_world(world, "one")
    publish_world(world, "two")
    response = as_alice.get(f"/api/worlds/{world.pk}/versions")
    assert [v["changelog"] for v in response.json()] == ["two", "one"]


def test_fork_copies_a_published_version(client, bob, world):
    version = publish_world(world)
    client.force_login(bob)
    response = client.post(f"/api/versions/{version.pk}/fork")
    assert response.status_code == 201
    fork = World.objects.get(pk=response.json()["id"])
    assert (fork.owner, fork.forked_from, fork.published) == (bob, version, False)


def test_fork_of_an_unpublished_version_is_404(client, bob, world):
    version = publish_world(world)
    world.published = False
    world.save()
    client.force_login(bob)
    response = client.post(f"/api/versions/{version.pk}/fork")
    assert response.status_code == 404
    assert response.json() == {"detail": "version not found", "errors": []}


def test_fork_needs_auth(client, world):
    version = publish_world(world)
    assert client.post(f"/api/versions/{version.pk}/fork").status_code == 401


def test_gallery_is_public_and_filtered(client, alice, bob, world):
    world.custom_tags = ["desert"]
    world.save()
    publish_world(world)
    publish_world(make_world(bob, name="Frost Keep", language="es", id=""))
    make_world(bob, name="Hidden draft", id="")
    everything = client.get("/api/gallery").json()
    assert everything["count"] == 2
    assert {r["name"] for r in everything["results"]} == {"The Salt Road", "Frost Keep"}
    salt = client.get("/api/gallery?q=salt").json()["results"]
    assert [(r["name"], r["owner"], r["tags"]) for r in salt] == [
        ("The Salt Road", "alice", ["desert"])
    ]
    assert [r["name"] for r in client.get("/api/gallery?language=es").json()["results"]] == [
        "Frost Keep"
    ]
    assert client.get("/api/gallery?tag=desert").json()["count"] == 1


def test_gallery_pages_without_n_plus_one(client, bob, django_assert_num_queries):
    for i in range(GALLERY_PAGE_SIZE + 2):
        publish_world(make_world(bob, name=f"World {i}", id=""))
    with django_assert_num_queries(2):  # count + page
        first = client.get("/api/gallery").json()
    assert (first["count"], first["pages"], len(first["results"])) == (26, 2, 24)
    second = client.get("/api/gallery?page=2").json()
    assert len(second["results"]) == 2


def test_gallery_rejects_a_bad_page(client, db):
    response = client.get("/api/gallery?page=two")
    assert response.status_code == 422
    assert response.json()["errors"] == [
        "page: input should be a valid integer, unable to parse string as an integer"
    ]
