"""Publish, unpublish, fork, export JSON from a draft or a version."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from engine.world import load_world
from studio.models import World, WorldVersion
from studio.worlds import update_world
from tests.studio.view_helpers import hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


def test_publish_freezes_a_version_with_its_changelog(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:publish", args=[world.pk]), {"changelog": "First caravan"}
    )
    world.refresh_from_db()
    version = world.versions.get()
    assert response["Location"] == reverse("studio:world", args=[world.pk])
    assert world.published and world.published_version == version
    assert (version.number, version.changelog) == (1, "First caravan")
    assert version.definition["entries"][0]["id"] == "narrator"


def test_publish_again_makes_version_two_and_htmx_gets_the_partial(client, alice, world):
    publish(world)
    response = login(client, alice).post(
        reverse("studio:publish", args=[world.pk]), {"changelog": "More salt"}, **hx()
    )
    assert is_partial(response)
    assert "More salt" in response.content.decode()
    assert list(world.versions.values_list("number", flat=True)) == [2, 1]


def test_publish_with_a_too_long_changelog_rerenders_with_the_error(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:publish", args=[world.pk]), {"changelog": "x" * 501}
    )
    assert "Ensure this value has at most 500 characters (it has 501)." in response.content.decode()
    assert not WorldVersion.objects.exists()


def test_publish_checklist(client, alice, bob, charlie, world):
    url = reverse("studio:publish", args=[world.pk])
    assert client.post(url).status_code == 302
    assert login(client, charlie).post(url).status_code == 404
    assert login(client, alice).get(url).status_code == 405
    publish(world)
    assert login(client, bob).post(url).status_code == 403
    assert world.versions.count() == 1


def test_unpublish_takes_it_out_of_the_gallery(client, alice, bob, world):
    publish(world)
    url = reverse("studio:unpublish", args=[world.pk])
    assert login(client, bob).post(url).status_code == 403
    assert login(client, alice).get(url).status_code == 405
    response = client.post(url)
    world.refresh_from_db()
    assert response.status_code == 302
    assert not world.published
    assert world.versions.count() == 1


def test_fork_copies_the_version_into_my_drafts(client, alice, bob, world):
    version = publish(world)
    update_world(world, {"name": "Changed after publishing"})
    response = login(client, bob).post(reverse("fork", args=[version.pk]))
    fork = World.objects.get(owner=bob)
    assert response["Location"] == reverse("studio:world", args=[fork.pk])
    assert fork.name == "The Salt Road"
    assert fork.forked_from == version
    assert fork.uid != world.uid
    assert fork.entries.get().key == "narrator"


def test_fork_checklist(client, bob, charlie, world):
    version = publish(world)
    url = reverse("fork", args=[version.pk])
    assert client.post(url).status_code == 302
    assert not World.objects.exclude(pk=world.pk).exists()
    assert login(client, bob).get(url).status_code == 405
    world.published = False
    world.save()
    assert login(client, charlie).post(url).status_code == 404


def test_export_draft_downloads_schema_json(client, alice, bob, world):
    url = reverse("studio:export", args=[world.pk])
    response = login(client, alice).get(url)
    assert response["Content-Disposition"] == 'attachment; filename="the-salt-road.json"'
    data = json.loads(response.content)
    assert load_world(data).name == "The Salt Road"
    assert data["version"] == "20.0.0"
    assert client.post(url).status_code == 405
    publish(world)
    assert login(client, bob).get(url).status_code == 403


def test_export_version_is_public_while_listed(client, alice, world):
    version = publish(world, "v1")
    url = reverse("export_version", args=[version.pk])
    response = client.get(url)
    assert json.loads(response.content) == version.definition
    assert response["Content-Disposition"] == 'attachment; filename="the-salt-road-v1.json"'
    world.published = False
    world.save()
    assert client.get(url).status_code == 404
    assert login(client, alice).get(url).status_code == 200
