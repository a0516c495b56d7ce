"""Who may export and fork a published world (issue 32, finding 1): a game-master world is
played, not copied, unless its creator published the version as remixable with its secrets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from studio.models import World, WorldVersion
from studio.publishing import fork_world, publish_world
from studio.worlds import export_world_json, import_world
from tests.studio.canary_helpers import canaries_in, canary_world
from tests.studio.view_helpers import login

pytestmark = pytest.mark.django_db

KEPT = (
    "this game-master world's secrets stay with its creator: only a version published as "
    "remixable with its secrets can be exported or forked by others"
)


def gm_version(owner: Any, **publishing: Any) -> WorldVersion:
    return publish_world(import_world(owner, canary_world()), **publishing)


def planted() -> set[str]:
    return canaries_in(json.dumps(canary_world()))


def test_a_guest_cannot_export_a_game_master_version_but_still_a_plain_one(client, alice, world):
    version = gm_version(alice)
    response = client.get(reverse("export_version", args=[version.pk]))
    assert response.status_code == 403
    assert canaries_in(response.content.decode()) == set()
    assert "The secrets stay with the creator" in response.content.decode()
    plain = publish_world(world)
    assert client.get(reverse("export_version", args=[plain.pk])).status_code == 200


def test_only_the_owner_exports_and_forks_a_game_master_world(client, alice, bob):
    version = gm_version(alice)
    login(client, bob)
    exported = client.get(reverse("export_version", args=[version.pk]))
    api = client.get(f"/api/worlds/{version.world_id}/export?version={version.number}")
    forked = client.post(reverse("fork", args=[version.pk]))
    api_fork = client.post(f"/api/versions/{version.pk}/fork")
    assert [r.status_code for r in (exported, api, forked, api_fork)] == [403] * 4
    assert api.json() == {"detail": KEPT, "errors": []}
    assert api_fork.json() == {"detail": KEPT, "errors": []}
    assert not World.objects.filter(owner=bob).exists()
    for response in (exported, api, forked, api_fork):
        assert canaries_in(response.content.decode()) == set()
    login(client, alice)
    exported = client.get(reverse("export_version", args=[version.pk]))
    api = client.get(f"/api/worlds/{version.world_id}/export?version=1")
    assert canaries_in(exported.content.decode()) == canaries_in(api.content.decode()) == planted()
    assert canaries_in(json.dumps(export_world_json(fork_world(alice, version)))) == planted()


def test_a_plain_world_stays_exportable_and_forkable_by_others(client, alice, bob, world):
    version = publish_world(world)
    gm = gm_version(alice)
    login(client, bob)
    assert client.get(f"/api/worlds/{world.pk}/export?version=1").status_code == 200
    assert client.post(f"/api/versions/{version.pk}/fork").status_code == 201
    assert client.post(f"/api/versions/{gm.pk}/fork").status_code == 403


def test_fork_world_refuses_a_game_master_version_whoever_calls_it(alice, bob):
    version = gm_version(alice)
    with pytest.raises(PermissionDenied):
        fork_world(bob, version)
    assert not World.objects.filter(owner=bob).exists()


def test_a_remixable_version_carries_its_secrets_to_everyone(client, alice, bob):
    version = gm_version(alice, remixable_secrets=True)
    exported = client.get(reverse("export_version", args=[version.pk]))
    assert exported.status_code == 200
    assert canaries_in(exported.content.decode()) == planted()
    login(client, bob)
    api = client.get(f"/api/worlds/{version.world_id}/export?version=1")
    assert canaries_in(api.content.decode()) == planted()
    response = client.post(f"/api/versions/{version.pk}/fork")
    assert response.status_code == 201
    fork = World.objects.get(owner=bob)
    assert canaries_in(json.dumps(export_world_json(fork))) == planted()


def test_only_the_versions_published_remixable_are_copied(client, alice, bob):
    world = import_world(alice, canary_world())
    kept = publish_world(world)
    shared = publish_world(world, remixable_secrets=True)
    login(client, bob)
    assert client.get(reverse("export_version", args=[kept.pk])).status_code == 403
    assert client.get(reverse("export_version", args=[shared.pk])).status_code == 200


def test_the_world_page_offers_no_export_or_fork_of_a_game_master_world(client, alice, bob):
    version = gm_version(alice)
    export, fork = reverse("export_version", args=[version.pk]), reverse("fork", args=[version.pk])
    login(client, bob)
    html = client.get(reverse("world_page", args=[version.world_id])).content.decode()
    assert export not in html and fork not in html
    assert 'id="secrets-kept"' in html
    assert reverse("play:start", args=[version.pk]) in html
    login(client, alice)
    html = client.get(reverse("world_page", args=[version.world_id])).content.decode()
    assert export in html and fork in html
    assert 'id="secrets-kept"' not in html


def test_the_world_page_offers_export_and_fork_of_a_remixable_version(client, alice, bob):
    version = gm_version(alice, remixable_secrets=True)
    login(client, bob)
    html = client.get(reverse("world_page", args=[version.world_id])).content.decode()
    assert reverse("export_version", args=[version.pk]) in html
    assert reverse("fork", args=[version.pk]) in html
    assert 'id="secrets-kept"' not in html


def test_the_publish_form_of_a_game_master_world_warns_about_remixing(client, alice, world):
    gm = import_world(alice, canary_world())
    login(client, alice)
    html = client.get(reverse("studio:world", args=[gm.pk])).content.decode()
    assert 'name="remixable_secrets"' in html
    assert "players of a remixable world can read its solution" in html
    client.post(reverse("studio:publish", args=[gm.pk]), {"remixable_secrets": "on"})
    client.post(reverse("studio:publish", args=[gm.pk]), {"changelog": "kept"})
    assert [v.remixable_secrets for v in gm.versions.order_by("number")] == [True, False]
    html = client.get(reverse("studio:world", args=[gm.pk])).content.decode()
    assert html.count("remixable with its secrets") == 1  # the badge of version 1
    plain = client.get(reverse("studio:world", args=[world.pk])).content.decode()
    assert 'name="remixable_secrets"' not in plain  # a plain world's versions are its source


def test_the_api_publishes_a_remixable_version(client, alice):
    world = import_world(alice, canary_world())
    login(client, alice)
    body = json.dumps({"changelog": "open", "remixable_secrets": True})
    response = client.post(f"/api/worlds/{world.pk}/publish", body, "application/json")
    assert response.status_code == 201
    assert response.json()["remixable_secrets"] is True
    plain = client.post(f"/api/worlds/{world.pk}/publish")
    assert plain.json()["remixable_secrets"] is False
    versions = client.get(f"/api/worlds/{world.pk}/versions").json()
    assert [v["remixable_secrets"] for v in versions] == [False, True]
