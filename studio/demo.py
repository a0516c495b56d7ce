"""The bundled demo worlds, published by a ``demo`` user: the Lantern at Hollow's Edge, and
Brackenford, a village in game-master mode (issue 10 §7: engine moves, dice, clues, errands).

The Lantern's four audio tracks are tiny WAV files synthesised here with the standard library (no
binary files in the repository); they are stored as Assets under the fixed ids the JSON refers to.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import random
import struct
import uuid
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import transaction

from engine.world import WorldDefinition, export_world, load_world
from studio.models import Asset, World
from studio.publishing import publish_world
from studio.worlds import export_world_json, import_world, replace_world_content

DEMO_USERNAME = "demo"
DEMO_WORLD_PATH = Path(__file__).parent / "fixtures" / "demo_world.json"
GM_DEMO_WORLD_PATH = Path(__file__).parent / "fixtures" / "gm_demo_world.json"
RATE = 8000


def demo_definition() -> WorldDefinition:
    return load_world(DEMO_WORLD_PATH)


def _wav(seconds: float, sample: Callable[[float], float]) -> bytes:
    frames = bytearray()
    for i in range(int(seconds * RATE)):
        value = max(-1.0, min(1.0, sample(i / RATE)))
        frames += struct.pack("<h", int(value * 32767))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(bytes(frames))
    return buffer.getvalue()


def _chord(freqs: tuple[float, ...], tremolo: float) -> Callable[[float], float]:
    def sample(t: float) -> float:
        swell = 0.6 + 0.4 * math.sin(2 * math.pi * tremolo * t)
        return 0.25 * swell * sum(math.sin(2 * math.pi * f * t) for f in freqs) / len(freqs)

    return sample


def _wind() -> Callable[[float], float]:
    rng = random.Random(7)
    state = {"last": 0.0}

    def sample(t: float) -> float:
        # Low-passed noise with a slow gust envelope.
        state["last"] = 0.97 * state["last"] + 0.03 * rng.uniform(-1, 1)
        return 4 * state["last"] * (0.5 + 0.5 * math.sin(2 * math.pi * 0.25 * t))

    return sample


def _bell(t: float) -> float:
    partials = ((220.0, 1.0), (440.0, 0.5), (586.0, 0.35), (880.0, 0.2))
    decay = math.exp(-2.2 * t)
    return 0.4 * decay * sum(a * math.sin(2 * math.pi * f * t) for f, a in partials)


def demo_audio() -> dict[str, tuple[str, bytes]]:
    """Asset uid → (file name, WAV bytes) for each track of the demo world."""
    sounds = {
        "tavern-hearth": _wav(4, _chord((196.0, 246.9, 293.7), 0.5)),
        "hollow-theme": _wav(4, _chord((146.8, 174.6, 220.0), 0.2)),
        "forest-wind": _wav(4, _wind()),
        "bell-toll": _wav(2, _bell),
    }
    definition = demo_definition()
    out = {}
    for track in definition.audio_tracks:
        uid = track.url.removeprefix("@asset:")
        out[uid] = (f"{track.id}.wav", sounds[track.id])
    return out


def _demo_user() -> User:
    user, created = User.objects.get_or_create(
        username=DEMO_USERNAME, defaults={"first_name": "Fabula demo"}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def _ensure_assets(world: World) -> int:
    """Create the demo's audio assets, or rewrite a file gone missing from storage."""
    written = 0
    for uid, (name, data) in demo_audio().items():
        asset = Asset.objects.filter(uid=uuid.UUID(uid)).first()
        if asset is not None and asset.file.storage.exists(asset.file.name or ""):
            continue
        asset = asset or Asset(world=world, uid=uuid.UUID(uid))
        asset.original_name = name
        asset.content_type = "audio/wav"
        asset.size = len(data)
        asset.sha256 = _sha256(data)
        asset.file.save(name, ContentFile(data), save=False)
        asset.save()
        written += 1
    return written


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def gm_demo_definition() -> WorldDefinition:
    return load_world(GM_DEMO_WORLD_PATH)


def load_demo() -> dict[str, Any]:
    """Create or refresh the demo user, both worlds, the assets, the published versions and the
    world tests; safe to rerun. The Lantern's keys at the top (world, version, changed, assets),
    Brackenford's under ``gm``; ``tests``: how many tests were (re)written."""
    with transaction.atomic():
        user = _demo_user()
        world, changed = _refresh(user, demo_definition())
        assets = _ensure_assets(world)
        version = _publish(world, demo_definition(), "The bundled demo world.")
        gm_definition = gm_demo_definition()
        gm_world, gm_changed = _refresh(user, gm_definition)
        gm_version = _publish(gm_world, gm_definition, "The bundled game-master demo world.")
        tests = _load_tests(world, DEMO_WORLD_PATH) + _load_tests(gm_world, GM_DEMO_WORLD_PATH)
    gm = {"world": gm_world, "version": gm_version, "changed": gm_changed}
    return {
        "world": world,
        "version": version,
        "changed": changed,
        "assets": assets,
        "gm": gm,
        "tests": tests,
    }


def _load_tests(world: World, world_path: Path) -> int:
    """The world tests shipped beside the demo world (``<name>.tests.json``, issue 13 §3)."""
    from studio.worldtests.suites import replace_tests

    path = world_path.with_suffix(".tests.json")
    return replace_tests(world, json.loads(path.read_text(encoding="utf-8")))


def _refresh(user: User, definition: WorldDefinition) -> tuple[World, bool]:
    """The demo user's copy of ``definition``, created or brought up to date."""
    world = World.objects.filter(owner=user, uid=definition.id).first()
    if world is None:
        return import_world(user, definition), True
    changed = export_world_json(world) != export_world(definition)
    if changed:
        replace_world_content(world, definition)
    return world, changed


def _publish(world: World, definition: WorldDefinition, note: str) -> Any:
    """The published version of ``definition``: a new one only when the content changed."""
    version = world.published_version
    if version is None or version.content_hash != definition.content_hash:
        return publish_world(world, note)
    if not world.published:
        world.published = True
        world.save(update_fields=["published"])
    return version


def demo_json() -> dict[str, Any]:
    return dict(json.loads(DEMO_WORLD_PATH.read_text(encoding="utf-8")))
