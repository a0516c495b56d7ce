"""The bundled demo world and `manage.py load_demo`."""

from __future__ import annotations

import io
import wave
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from studio.demo import demo_audio, demo_definition, gm_demo_definition, load_demo
from studio.models import Asset, World, WorldVersion
from studio.publishing import gallery_worlds


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def test_demo_world_uses_every_part_of_the_format():
    world = demo_definition()
    assert {e.section for e in world.entries} == {
        "system-presets",
        "examples",
        "chat-history",
        "post-history",
    }
    assert "<START>" in next(e for e in world.entries if e.section == "examples").content
    assert any(e.depth is not None for e in world.entries if e.section == "chat-history")
    assert any(e.conditions for e in world.entries)
    assert {v.type for v in world.variables} == {"number", "string", "boolean", "json"}
    assert all(v.behavior_rules for v in world.variables)
    health = world.variables_by_id["health"]
    assert (health.min, health.max) == (0, 100)
    warning = world.rules_by_id["low-health-warning"]
    assert {a.type for a in warning.actions} == {"notify-player", "inject-directive"}
    assert world.reactions
    assert {t.type for t in world.audio_tracks} == {"bgm", "ambient", "sfx"}
    assert world.bgm_playlist is not None
    assert world.conditional_bgm
    assert world.warnings == []


def test_demo_audio_is_valid_wav_for_every_track():
    sounds = demo_audio()
    refs = {t.url.removeprefix("@asset:") for t in demo_definition().audio_tracks}
    assert set(sounds) == refs
    for _name, data in sounds.values():
        with wave.open(io.BytesIO(data)) as clip:
            assert clip.getnframes() > 0
        assert len(data) < 100_000


def test_load_demo_publishes_both_worlds_once(db):
    first = load_demo()
    again = load_demo()
    demo = User.objects.get(username="demo")
    assert not demo.has_usable_password()
    assert World.objects.filter(owner=demo).count() == 2
    assert WorldVersion.objects.count() == 2
    assert Asset.objects.count() == 4
    assert (first["changed"], again["changed"], again["assets"]) == (True, False, 0)
    assert (first["gm"]["changed"], again["gm"]["changed"]) == (True, False)
    assert again["gm"]["version"] == first["gm"]["version"]
    assert set(gallery_worlds()) == {first["world"], first["gm"]["world"]}


def test_the_game_master_demo_is_published_with_its_block(db):
    version = load_demo()["gm"]["version"]
    assert version.name == "Brackenford: The Missing Chalice"
    assert version.content_hash == gm_demo_definition().content_hash
    block = version.definition["gameMaster"]
    assert [c["id"] for c in block["characters"]] == ["ren", "ada"]
    assert len(block["npcs"]) >= 6


def test_load_demo_command_reports_what_it_did(db):
    out = StringIO()
    call_command("load_demo", stdout=out)
    assert out.getvalue() == (
        "Demo world 'The Lantern at Hollow's Edge' updated; published version 1, "
        "4 new audio assets.\n"
        "Game-master demo world 'Brackenford: The Missing Chalice' updated; "
        "published version 1.\n"
    )


def test_load_demo_restores_missing_audio_files(db):
    load_demo()
    asset = Asset.objects.first()
    asset.file.storage.delete(asset.file.name)
    assert load_demo()["assets"] == 1
    asset.refresh_from_db()
    assert asset.file.storage.exists(asset.file.name)
