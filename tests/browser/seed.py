"""Seed a fresh database for the browser tests; run as a script against DATABASE_URL.

Prints one JSON object: the session cookie of Alice, the ids of the sessions it made.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402

from play.sessions import start_session  # noqa: E402
from studio.publishing import publish_world  # noqa: E402
from studio.worlds import import_world  # noqa: E402
from tests.factories import wav_bytes  # noqa: E402

TONE_URL = "/media/fabula-browser/tone.wav"

WORLD = {
    "id": "4d1c8a2e-9b7f-4c3a-8e21-6f0a9d3b5c70",
    "version": "20.0.0",
    "name": "The Salt Road",
    "description": "Caravans cross a drowned desert.",
    "author": "Alice",
    "language": "en",
    "entries": [
        {
            "id": "narrator",
            "name": "Narrator",
            "content": "You narrate the salt road.",
            "role": "system",
            "section": "system-presets",
        },
        {
            "id": "greeting-dawn",
            "name": "Dawn",
            "content": "The caravan halts at the edge of the **salt flats**. Dust rises.",
            "role": "greeting",
            "section": "chat-history",
        },
        {
            "id": "greeting-night",
            "name": "Night",
            "content": "Night falls over the dunes. <b>Nobody</b> sleeps.",
            "role": "greeting",
            "section": "chat-history",
        },
    ],
    "variables": [
        {"id": "steps", "name": "Steps", "type": "number", "defaultValue": 0, "min": 0, "max": 10},
        {
            "id": "health",
            "name": "Health",
            "type": "number",
            "defaultValue": 80,
            "min": 0,
            "max": 100,
        },
        {"id": "mood", "name": "Mood", "type": "string", "defaultValue": "calm"},
    ],
    "rules": [
        {
            "id": "walk",
            "name": "Every turn is a step",
            "trigger": {"type": "every-turn"},
            "actions": [
                {"type": "modify-variable", "variableId": "steps", "operation": "add", "value": 1}
            ],
        },
        {
            "id": "milestone",
            "name": "Two steps",
            "trigger": {"type": "turn-count", "atTurn": 2},
            "actions": [
                {"type": "notify-player", "style": "achievement", "message": "Two turns survived!"}
            ],
        },
    ],
    "components": [
        {"id": "health-bar", "type": "status-bar", "name": "Health", "variableId": "health"},
        {
            "id": "steps-bar",
            "type": "status-bar",
            "name": "Journey",
            "variableId": "steps",
            "color": "#e0a030",
        },
        {"id": "mood-text", "type": "text", "name": "Mood", "variableId": "mood"},
    ],
    "audioTracks": [
        {"id": "bgm-road", "name": "Road", "type": "bgm", "url": TONE_URL, "loop": True},
        {"id": "bgm-tension", "name": "Tension", "type": "bgm", "url": TONE_URL, "loop": True},
    ],
    "bgmPlaylist": {"tracks": ["bgm-road"], "playMode": "loop", "autoPlay": True},
    "conditionalBGM": [
        {
            "id": "far-along",
            "targetTrackId": "bgm-tension",
            "triggerType": "variable",
            "conditions": [{"variableId": "steps", "operator": "gte", "value": 2}],
            "fallback": "default",
        }
    ],
}


UI_SOURCE = """import Badge from "./badge";

function probe() {
  var attempt = (fn) => { try { return String(fn()); } catch (e) { return e.name; } };
  return [attempt(() => eval("1 + 1")), attempt(() => new Function("return 1")())].join(" ");
}

export default function App() {
  var api = useYumina();
  var [probed] = React.useState(probe);
  return (
    <div style={{ padding: "12px", display: "flex", flexDirection: "column", height: "100vh" }}>
      <header id="hp">Steps: {String(api.variables.steps)}</header>
      <Badge label={api.worldName} />
      <output id="probe">{probed}</output>
      <div>
        <button id="go" onClick={() => api.sendMessage("I march on")}>March</button>
        <button id="toast" onClick={() => api.showToast("Hello from the UI", "success")}>
          Toast
        </button>
      </div>
      <Chat />
    </div>
  );
}
"""
BADGE_SOURCE = (
    'export default function Badge(props) { return <strong id="badge">{props.label}</strong>; }'
)


def login_cookie(user: User) -> str:
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return str(store.session_key)


def main() -> None:
    media = Path(settings.MEDIA_ROOT) / "fabula-browser"
    media.mkdir(parents=True, exist_ok=True)
    (media / "tone.wav").write_bytes(wav_bytes(frames=16000, rate=8000))
    alice = User.objects.create_user("alice", "alice@example.com", "password")
    User.objects.create_user("bob", "bob@example.com", "password")
    world = import_world(alice, WORLD)
    version = publish_world(world)
    offline = start_session(alice, version, mode="offline")
    fresh = start_session(alice, version, mode="offline")
    live = start_session(alice, version, mode="live")
    ui_world = import_world(
        alice,
        {
            **WORLD,
            "id": "9f0e3c1a-2b4d-4e6f-8a7b-1c2d3e4f5a6b",
            "name": "The Salt Road (with a UI)",
            "rootComponent": {
                "id": "ui-1",
                "name": "Salt UI",
                "entryFile": "index.tsx",
                "files": {"index.tsx": UI_SOURCE, "badge.tsx": BADGE_SOURCE},
            },
        },
    )
    ui = start_session(alice, publish_world(ui_world), mode="offline")
    print(
        json.dumps(
            {
                "cookie": login_cookie(alice),
                "offline": str(offline.pk),
                "fresh": str(fresh.pk),
                "live": str(live.pk),
                "ui": str(ui.pk),
                "version": version.pk,
                "world": world.pk,
            }
        )
    )


if __name__ == "__main__":
    main()
