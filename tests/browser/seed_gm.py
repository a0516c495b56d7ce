"""Seed tests/browser/test_gm_play.py's database after ``manage.py load_demo``; run as a script.

Prints one JSON object: the session cookie of Alice, a player with no session yet.
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


def login_cookie(user: User) -> str:
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return str(store.session_key)


def main() -> None:
    alice = User.objects.create_user("alice", "alice@example.com", "password")
    print(json.dumps({"cookie": login_cookie(alice)}))


if __name__ == "__main__":
    main()
