"""studio.assets: audio uploads checked by size and magic bytes."""

from __future__ import annotations

import pytest

from engine.world import WorldValidationError
from studio.assets import resolve_asset_url, sniff_audio, store_audio_asset
from tests.factories import audio_upload, wav_bytes


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (wav_bytes()[:16], "audio/wav"),
        (b"ID3\x04\x00" + b"\x00" * 11, "audio/mpeg"),
        (b"\xff\xfb\x90\x64" + b"\x00" * 12, "audio/mpeg"),
        (b"OggS\x00\x02" + b"\x00" * 10, "audio/ogg"),
        (b"fLaC\x00\x00\x00\x22" + b"\x00" * 8, "audio/flac"),
        (b"\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00", "audio/mp4"),
        (b"<html><body>hi</b", None),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 8, None),
    ],
)
def test_sniff_audio_reads_magic_bytes(head, kind):
    assert sniff_audio(head) == kind


def test_a_wav_upload_becomes_an_asset(world):
    asset = store_audio_asset(world, audio_upload(name="hearth.wav"))
    assert asset.content_type == "audio/wav"
    assert asset.size == len(wav_bytes())
    assert asset.original_name == "hearth.wav"
    assert asset.ref == f"@asset:{asset.uid}"
    assert resolve_asset_url(asset.ref) == asset.file.url
    assert asset.file.read() == wav_bytes()


def test_a_file_named_like_audio_but_not_audio_is_refused(world):
    with pytest.raises(WorldValidationError) as caught:
        store_audio_asset(world, audio_upload(b"#!/bin/sh\necho hi\n", name="evil.mp3"))
    assert caught.value.errors == ["file: not an audio file (WAV, MP3, OGG, FLAC or M4A expected)"]
    assert world.assets.count() == 0


def test_a_file_over_the_limit_is_refused(world, settings):
    settings.MAX_AUDIO_BYTES = 1024 * 1024
    with pytest.raises(WorldValidationError) as caught:
        store_audio_asset(world, audio_upload(b"RIFF" + b"\x00" * (1024 * 1024 + 1)))
    assert caught.value.errors == ["file: is larger than the 1 MB limit"]


def test_resolve_leaves_plain_urls_and_unknown_refs(db):
    assert resolve_asset_url("https://example.com/a.ogg") == "https://example.com/a.ogg"
    assert resolve_asset_url("@asset:nope") == ""
    assert resolve_asset_url("@asset:8f3c1a52-6d0b-4c3e-9a17-0000000d3001") == ""
