"""Plain factory functions for the Django-side tests (no factory library, no magic)."""

from __future__ import annotations

import copy
import functools
import io
import struct
import wave
from typing import Any

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile

from studio.models import World
from studio.tokens import create_token
from studio.worlds import import_world

WORLD_ID = "0b7a3c2e-5d1f-4e8a-9c6b-2f4d8e1a7b30"

BASE_WORLD: dict[str, Any] = {
    "id": WORLD_ID,
    "version": "20.0.0",
    "name": "The Salt Road",
    "description": "Caravans cross a drowned desert.",
    "author": "Alice",
    "language": "en",
    "entries": [
        {
            "id": "narrator",
            "name": "Narrator",
            "content": "You narrate the salt road. {{char}} speaks plainly.",
            "role": "system",
            "section": "system-presets",
        }
    ],
    "variables": [
        {
            "id": "health",
            "name": "Health",
            "type": "number",
            "defaultValue": 100,
            "min": 0,
            "max": 100,
            "behaviorRules": "Drops on injury.",
        }
    ],
    "rules": [
        {
            "id": "low-health-warning",
            "name": "Low health",
            "trigger": {
                "type": "variable-crossed",
                "variableId": "health",
                "direction": "drops-below",
                "threshold": 20,
            },
            "actions": [{"type": "notify-player", "style": "warning", "message": "You reel."}],
            "priority": 50,
        }
    ],
}


def world_data(**overrides: Any) -> dict[str, Any]:
    """A small valid world JSON (one entry, one variable, one rule), with overrides."""
    data = copy.deepcopy(BASE_WORLD)
    data.update(overrides)
    return data


@functools.cache
def _password_hash(password: str) -> str:
    # Hashing is slow on purpose; hash once per run and reuse it (salted, still checkable).
    return make_password(password)


def make_user(username: str, password: str = "password") -> User:
    return User.objects.create(
        username=username, email=f"{username}@example.com", password=_password_hash(password)
    )


def make_world(owner: User, **overrides: Any) -> World:
    return import_world(owner, world_data(**overrides))


def make_token(user: User, name: str = "script") -> str:
    return create_token(user, name)[1]


def wav_bytes(frames: int = 800, rate: int = 8000) -> bytes:
    """A tiny valid mono 16-bit WAV of silence."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(struct.pack("<h", 0) * frames)
    return buffer.getvalue()


def audio_upload(data: bytes | None = None, name: str = "clip.wav") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, wav_bytes() if data is None else data, "audio/wav")


def full_world_data() -> dict[str, Any]:
    """A world that uses every part of the schema, plus unknown fields at several levels."""
    data = world_data(
        version="21.1.0",
        futureTopLevel={"kept": True},
        reactions=[
            {
                "id": "enter-forest",
                "when": {"eventType": "spatial:zone-enter", "zone": "forest"},
                "then": [
                    {"type": "set", "path": "@audio.ambient", "value": "wind"},
                    {"type": "emit", "event": {"type": "spatial:ambience-changed"}},
                ],
            }
        ],
        rootComponent={
            "id": "ui-1",
            "name": "Salt UI",
            "entryFile": "index.tsx",
            "files": {"index.tsx": "export default () => <Chat />;", "hud.tsx": "// hud"},
            "updatedAt": "2024-01-01T00:00:00Z",
            "theme": "dark",
        },
        components=[{"id": "hp-bar", "type": "status-bar", "variableId": "health", "color": "red"}],
        audioTracks=[
            {"id": "wind", "type": "ambient", "url": "https://example.com/w.ogg", "loop": True},
            {"id": "drums", "type": "bgm", "url": "@asset:x", "volume": 0.4, "fadeIn": 2},
        ],
        bgmPlaylist={"tracks": ["drums"], "playMode": "shuffle", "gapSeconds": 3, "x-mode": 1},
        conditionalBGM=[
            {
                "id": "storm",
                "targetTrackId": "drums",
                "conditions": [{"variableId": "health", "operator": "lt", "value": 30}],
                "stopPreviousBGM": False,
                "fallback": "previous",
            }
        ],
        customUI=[{"legacy": True}],
        entryFolders=[{"id": "lore", "name": "Lore"}, {"id": "npcs", "parentId": "lore"}],
        customTags=["npc"],
        customTagColors={"npc": "bg-red-500"},
        editorMode="simple",
        settings={"temperature": 0.7, "topK": 40, "playerName": "Ash", "vendorKnob": 3},
    )
    del data["language"]
    data["entries"].append(
        {
            "id": "dunes",
            "section": "chat-history",
            "keywords": ["dune"],
            "depth": 2,
            "folderId": "lore",
            "position": 7,
            "futureEntryField": [1, 2],
        }
    )
    data["variables"].append(
        {"id": "bag", "type": "json", "defaultValue": {"a": [1]}, "category": "inventory"}
    )
    return data


def journal_text(size: int = 5 * 1024) -> str:
    """A ``size``-byte journal value with a marker that shows how often a frame carries it."""
    head = "JOURNAL-MARK "
    return head + ("The caravan keeps its log. " * (size // 27 + 1))[: size - len(head)]


def add_long_history(session: Any, count: int, *, journal: str | None = None) -> None:
    """Append settled turns until ``session`` holds ``count`` messages, in one bulk insert.

    Each message keeps a full state snapshot (with the ``journal`` value, 5 KB by default) and
    each reply one swipe with its own snapshot, as real turns leave them; no engine runs.
    """
    from play.models import Message

    journal = journal_text() if journal is None else journal
    start = session.messages.count()
    base = dict(session.state or {})
    rows = []
    for position in range(start, count):
        values = {**base.get("values", {}), "gold": position, "journal": journal}
        state = {**base, "values": values, "turn": position // 2}
        role = "user" if position % 2 else "assistant"
        content = f"Message {position}: " + ("the salt road goes on. " * 8)
        changes = [{"variableId": "gold", "path": [], "old": position - 1, "new": position}]
        swipes = []
        if role == "assistant":
            swipes = [{"content": content, "raw": content, "state": state, "status": "complete"}]
        rows.append(
            Message(
                session=session,
                position=position,
                role=role,
                content=content,
                raw=content,
                state=state,
                changes=changes,
                swipes=swipes,
            )
        )
    Message.objects.bulk_create(rows, batch_size=500)
    session.state = rows[-1].state if rows else session.state
    session.save(update_fields=["state", "updated_at"])
