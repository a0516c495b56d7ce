"""Seed a long session for tests/browser/test_long_session.py; run as a script on DATABASE_URL.

Prints one JSON object: Alice's session cookie and the id of a session of ``argv[1]`` messages
(600 by default), each keeping a 5 KB state snapshot.
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

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402

from play.sessions import start_session  # noqa: E402
from studio.publishing import publish_world  # noqa: E402
from studio.worlds import import_world  # noqa: E402
from tests.factories import BASE_WORLD, add_long_history  # noqa: E402

WORLD = {
    **BASE_WORLD,
    "entries": [
        *BASE_WORLD["entries"],
        {
            "id": "greeting",
            "name": "Dawn",
            "content": "Dawn over the salt.",
            "role": "greeting",
            "section": "chat-history",
        },
    ],
    "variables": [
        *BASE_WORLD["variables"],
        {"id": "gold", "name": "Gold", "type": "number", "defaultValue": 0},
        {"id": "journal", "name": "Journal", "type": "string", "defaultValue": ""},
    ],
}


def login_cookie(user: User) -> str:
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return str(store.session_key)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    alice = User.objects.create_user("alice", "alice@example.com", "password")
    version = publish_world(import_world(alice, WORLD))
    session = start_session(alice, version, mode="offline", dice_seed=7)
    add_long_history(session, count)
    print(json.dumps({"cookie": login_cookie(alice), "session": str(session.pk)}))


if __name__ == "__main__":
    main()
