"""Audio uploads and the BGM playlist (tracks and conditional BGM are in test_views_items)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studio.models import AudioTrack, BGMPlaylist
from studio.worlds import create_item
from tests.factories import audio_upload
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def test_upload_creates_an_asset_and_a_track(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:audio_upload", args=[world.pk]),
        {"file": audio_upload(), "track_name": "Rain", "type": "ambient"},
    )
    track = world.audio_tracks.get()
    asset = world.assets.get()
    assert response["Location"] == reverse("studio:audio_edit", args=[world.pk, track.pk])
    assert (track.name, track.type, track.loop) == ("Rain", "ambient", True)
    assert track.url == f"@asset:{asset.uid}"


def test_upload_of_a_non_audio_file_says_why_and_creates_nothing(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:audio_upload", args=[world.pk]),
        {"file": audio_upload(b"just text", "notes.wav"), "track_name": "", "type": "sfx"},
        **hx(),
    )
    assert is_partial(response)
    assert errors_of(response) == ["not an audio file (WAV, MP3, OGG, FLAC or M4A expected)"]
    assert not world.audio_tracks.exists()
    assert not world.assets.exists()


def test_upload_checklist(client, alice, bob, charlie, world):
    url = reverse("studio:audio_upload", args=[world.pk])
    assert client.post(url).status_code == 302
    assert login(client, charlie).post(url).status_code == 404
    assert login(client, alice).get(url).status_code == 405
    publish(world)
    data = {"file": audio_upload(), "type": "bgm"}
    assert login(client, bob).post(url, data).status_code == 403


def playlist_post(**overrides: str) -> dict[str, str]:
    data = {
        "tracks": "theme, rain",
        "play_mode": "shuffle",
        "gap_seconds": "2",
        "auto_play": "on",
        "wait_for_first_message": "on",
    }
    data.update(overrides)
    return data


def test_playlist_saves_and_removes(client, alice, world):
    create_item(world, AudioTrack, {"id": "theme"})
    login(client, alice)
    url = reverse("studio:playlist", args=[world.pk])
    assert b"bgmPlaylist is null" in client.get(url).content
    response = client.post(url, playlist_post())
    playlist = BGMPlaylist.objects.get(world=world)
    assert response["Location"] == url
    assert (playlist.tracks, playlist.play_mode, playlist.gap_seconds) == (
        ["theme", "rain"],
        "shuffle",
        2.0,
    )
    assert playlist.wait_for_first_message is True
    response = client.post(reverse("studio:playlist_delete", args=[world.pk]), **hx())
    assert is_partial(response)
    assert not BGMPlaylist.objects.filter(world=world).exists()


def test_playlist_gap_over_30_shows_the_engine_error(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:playlist", args=[world.pk]), playlist_post(gap_seconds="31"), **hx()
    )
    assert is_partial(response)
    assert errors_of(response) == ["input should be less than or equal to 30"]
    assert not BGMPlaylist.objects.filter(world=world).exists()


def test_playlist_checklist(client, alice, bob, charlie, world):
    url = reverse("studio:playlist", args=[world.pk])
    assert client.get(url).status_code == 302
    assert login(client, charlie).get(url).status_code == 404
    assert login(client, alice).put(url).status_code == 405
    assert client.get(reverse("studio:playlist_delete", args=[world.pk])).status_code == 405
    publish(world)
    assert login(client, bob).post(url, playlist_post()).status_code == 403
