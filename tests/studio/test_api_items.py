"""API: the lists of a world (/api/worlds/{id}/<kind>), the playlist and the custom UI files."""

from __future__ import annotations

import pytest

from studio.api_items import KINDS
from studio.publishing import publish_world
from studio.worlds import export_world_json, save_root_file
from tests.factories import audio_upload, make_world

SAMPLES = {
    "entries": ({"id": "well", "content": "A well."}, {"id": "x", "section": "up"}),
    "variables": ({"id": "gold", "type": "number", "defaultValue": 5}, {"id": "g", "type": "$"}),
    "rules": ({"id": "tick", "trigger": {"type": "every-turn"}}, {"id": "t", "trigger": {}}),
    "reactions": ({"id": "r1", "when": {"eventType": "turn:complete"}}, {"id": "r1"}),
    "audio-tracks": ({"id": "rain", "type": "ambient"}, {"id": "rain", "volume": 2}),
    "conditional-bgm": ({"id": "c1", "targetTrackId": "rain"}, {"id": "c1"}),
    "folders": ({"id": "f1", "name": "Lore"}, {"id": 5}),
    "components": ({"id": "hp", "type": "gauge", "max": 10}, {"id": "hp"}),
}
ERRORS = {
    "entries": "section: must be one of system-presets, examples, chat-history, post-history",
    "variables": "type: must be one of number, string, boolean, json",
    "rules": "trigger: type is required",
    "reactions": "when: is required",
    "audio-tracks": "volume: input should be less than or equal to 1",
    "conditional-bgm": "targetTrackId: is required",
    "folders": "id: input should be a valid string",
    "components": "type: is required",
}
NOUNS = {
    "entries": "entry",
    "variables": "variable",
    "rules": "rule",
    "reactions": "reaction",
    "audio-tracks": "audio track",
    "conditional-bgm": "conditional BGM",
    "folders": "folder",
    "components": "component",
}
kinds = pytest.mark.parametrize("kind", list(KINDS))


def many(world, kind):
    return f"/api/worlds/{world.pk}/{kind}"


def create(client, world, kind, data=None):
    response = client.post(many(world, kind), data or SAMPLES[kind][0], "application/json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def test_every_kind_has_samples():
    assert set(SAMPLES) == set(KINDS) == set(ERRORS) == set(NOUNS)


@kinds
def test_create_then_read_back(as_alice, world, kind):
    created = create(as_alice, world, kind)
    assert created["data"]["id"] == SAMPLES[kind][0]["id"]
    listed = as_alice.get(many(world, kind)).json()
    assert created in listed
    one = as_alice.get(f"{many(world, kind)}/{created['pk']}")
    assert one.json() == created
    field = {"audio-tracks": "audioTracks", "conditional-bgm": "conditionalBGM"}.get(kind, kind)
    field = "entryFolders" if kind == "folders" else field
    assert export_world_json(world)[field][-1] == created["data"]


@kinds
def test_create_rejects_bad_input_with_the_field_path(as_alice, world, kind):
    response = as_alice.post(many(world, kind), SAMPLES[kind][1], "application/json")
    assert response.status_code == 422
    assert response.json() == {"detail": "invalid world", "errors": [ERRORS[kind]]}


@kinds
def test_patch_merges_and_put_replaces(as_alice, world, kind):
    created = create(as_alice, world, kind)
    one = f"{many(world, kind)}/{created['pk']}"
    patched = as_alice.patch(one, {"name": "Renamed"}, "application/json").json()
    assert patched["data"] == {**created["data"], "name": "Renamed"}
    replaced = as_alice.put(one, {**SAMPLES[kind][0]}, "application/json").json()
    assert replaced["data"]["name"] == SAMPLES[kind][0].get("name", "")


@kinds
def test_bad_update_is_422_and_changes_nothing(as_alice, world, kind):
    created = create(as_alice, world, kind)
    one = f"{many(world, kind)}/{created['pk']}"
    response = as_alice.put(one, SAMPLES[kind][1], "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == [ERRORS[kind]]
    assert as_alice.get(one).json() == created


@kinds
def test_delete_removes_the_item(as_alice, world, kind):
    created = create(as_alice, world, kind)
    one = f"{many(world, kind)}/{created['pk']}"
    assert as_alice.delete(one).status_code == 204
    response = as_alice.get(one)
    assert response.status_code == 404
    assert response.json() == {"detail": f"{NOUNS[kind]} not found", "errors": []}


@kinds
def test_move_and_duplicate(as_alice, world, kind):
    first = create(as_alice, world, kind)
    second = create(as_alice, world, kind, {**SAMPLES[kind][0], "id": "second"})
    moved = as_alice.post(
        f"{many(world, kind)}/{second['pk']}/move", {"position": 0}, "application/json"
    )
    assert moved.status_code == 200
    order = [item["data"]["id"] for item in moved.json()]
    assert order.index("second") < order.index(first["data"]["id"])
    copy = as_alice.post(f"{many(world, kind)}/{first['pk']}/duplicate")
    assert copy.status_code == 201
    assert copy.json()["data"]["id"] == f"{first['data']['id']}-copy"


@kinds
def test_items_need_auth(client, world, kind):
    assert client.get(many(world, kind)).status_code == 401
    assert client.post(many(world, kind), SAMPLES[kind][0], "application/json").status_code == 401


@kinds
def test_another_users_draft_is_404(client, charlie, world, kind):
    client.force_login(charlie)
    assert client.get(many(world, kind)).status_code == 404
    assert client.post(many(world, kind), SAMPLES[kind][0], "application/json").status_code == 404


@kinds
def test_a_published_world_is_read_only(client, bob, world, kind):
    publish_world(world)
    client.force_login(bob)
    # Others read the published versions, never the live draft's rows.
    assert client.get(many(world, kind)).status_code == 403
    response = client.post(many(world, kind), SAMPLES[kind][0], "application/json")
    assert response.status_code == 403


def test_an_item_of_another_world_is_404(as_alice, world, alice):
    other = make_world(alice, id="")
    entry = other.entries.get()
    response = as_alice.get(f"{many(world, 'entries')}/{entry.pk}")
    assert response.status_code == 404


def test_duplicate_ids_are_refused(as_alice, world):
    response = as_alice.post(many(world, "entries"), {"id": "narrator"}, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["id: duplicate id 'narrator' (another entry uses it)"]


def test_move_rejects_a_negative_position(as_alice, world):
    entry = world.entries.get()
    url = f"{many(world, 'entries')}/{entry.pk}/move"
    response = as_alice.post(url, {"position": -1}, "application/json")
    assert response.status_code == 422
    assert response.json() == {
        "detail": "invalid input",
        "errors": ["position: input should be greater than or equal to 0"],
    }


def test_list_query_count_does_not_grow(as_alice, world, django_assert_num_queries):
    for i in range(5):
        create(as_alice, world, "entries", {"id": f"e{i}"})
    # session, user, world, entries
    with django_assert_num_queries(4):
        as_alice.get(many(world, "entries"))


# --- audio upload, playlist, custom UI ------------------------------------------------------


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def test_uploading_a_tracks_audio_sets_its_url(as_alice, world, media):
    track = create(as_alice, world, "audio-tracks")
    url = f"{many(world, 'audio-tracks')}/{track['pk']}/asset"
    response = as_alice.post(url, {"file": audio_upload()})
    assert response.status_code == 200
    asset = world.assets.get()
    assert response.json()["data"]["url"] == f"@asset:{asset.uid}"


def test_uploading_something_else_is_422(as_alice, world, media):
    track = create(as_alice, world, "audio-tracks")
    url = f"{many(world, 'audio-tracks')}/{track['pk']}/asset"
    response = as_alice.post(url, {"file": audio_upload(b"GIF89a......", name="x.wav")})
    assert response.status_code == 422
    assert response.json()["errors"] == [
        "file: not an audio file (WAV, MP3, OGG, FLAC or M4A expected)"
    ]


def test_asset_upload_returns_its_reference(as_alice, world, media):
    response = as_alice.post(f"/api/worlds/{world.pk}/assets", {"file": audio_upload()})
    assert response.status_code == 201
    body = response.json()
    assert body["ref"] == f"@asset:{body['uid']}"
    assert body["content_type"] == "audio/wav"


def test_asset_upload_needs_a_file(as_alice, world, media):
    response = as_alice.post(f"/api/worlds/{world.pk}/assets", {})
    assert response.status_code == 422
    assert response.json()["errors"] == ["file: field required"]


def test_playlist_put_get_delete(as_alice, world):
    url = f"/api/worlds/{world.pk}/bgm-playlist"
    assert as_alice.get(url).json() is None
    put = as_alice.put(url, {"tracks": ["a"], "playMode": "sequential"}, "application/json")
    assert put.status_code == 200
    assert as_alice.get(url).json()["playMode"] == "sequential"
    bad = as_alice.put(url, {"playMode": "random"}, "application/json")
    assert bad.status_code == 422
    assert bad.json()["errors"] == ["playMode: must be one of loop, shuffle, sequential"]
    assert as_alice.delete(url).status_code == 204
    assert as_alice.get(url).json() is None


def test_root_component_and_files(as_alice, world):
    base = f"/api/worlds/{world.pk}/root-component"
    assert as_alice.get(base).json() is None
    created = as_alice.post(
        f"{base}/files", {"path": "index.tsx", "source": "A"}, "application/json"
    )
    assert created.status_code == 201
    pk = created.json()["pk"]
    renamed = as_alice.put(
        f"{base}/files/{pk}", {"path": "main.tsx", "source": "B"}, "application/json"
    )
    assert renamed.json() == {"pk": pk, "path": "main.tsx", "source": "B"}
    meta = as_alice.put(base, {"name": "HUD"}, "application/json").json()
    assert (meta["name"], meta["entryFile"], meta["files"]) == (
        "HUD",
        "main.tsx",
        {"main.tsx": "B"},
    )
    bad = as_alice.put(base, {"entryFile": "nope.tsx"}, "application/json")
    assert bad.status_code == 422
    assert bad.json()["errors"] == ["$: entryFile 'nope.tsx' is not among files"]
    assert as_alice.delete(f"{base}/files/{pk}").status_code == 204
    assert as_alice.delete(base).status_code == 204
    assert as_alice.get(base).json() is None


def test_root_file_paths_are_checked(as_alice, world):
    url = f"/api/worlds/{world.pk}/root-component/files"
    response = as_alice.post(url, {"path": "/abs.tsx"}, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["path: '/abs.tsx' is not a relative file path"]


def test_root_files_of_others_are_hidden(client, charlie, world):
    file = save_root_file(world, "index.tsx", "x")
    client.force_login(charlie)
    url = f"/api/worlds/{world.pk}/root-component/files/{file.pk}"
    assert client.get(url).status_code == 404


def test_wrong_methods_are_405(as_alice, world):
    entry = world.entries.get()
    assert as_alice.patch(many(world, "entries"), {}, "application/json").status_code == 405
    assert as_alice.get(f"{many(world, 'entries')}/{entry.pk}/move").status_code == 405
    assert as_alice.post(f"{many(world, 'entries')}/{entry.pk}").status_code == 405
