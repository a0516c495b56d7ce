"""Add one world to a database seeded by tests/browser/seed.py; run as a script.

Reads the world JSON on stdin, imports it for Alice, publishes it and starts an offline session
with a persona named in argv[1] (when given). Prints ``{"session": …, "world": …}``.
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

from django.contrib.auth.models import User  # noqa: E402

from play.sessions import start_session  # noqa: E402
from studio.publishing import publish_world  # noqa: E402
from studio.worlds import import_world  # noqa: E402


def main() -> None:
    alice = User.objects.get(username="alice")
    world = import_world(alice, json.load(sys.stdin))
    persona = {"name": sys.argv[1]} if len(sys.argv) > 1 else None
    session = start_session(alice, publish_world(world), mode="offline", persona_data=persona)
    print(json.dumps({"session": str(session.pk), "world": world.pk}))


if __name__ == "__main__":
    main()
