"""Seed tests/browser/test_faces_menus.py's database after ``manage.py load_demo``; run as a script.

Alice owns "The Salt Road", published, with a greeting and no portrait yet, and nothing else: no
persona, no session; and "Quiet Harbour", published with a portrait (the phone test loses its
files). Prints one JSON object: her session cookie and the worlds' ids.
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

from studio.portraits import set_world_portrait  # noqa: E402
from studio.publishing import publish_world  # noqa: E402
from studio.worlds import import_world  # noqa: E402
from tests.browser.seed_gm import login_cookie  # noqa: E402
from tests.support.images import image_upload  # noqa: E402

HARBOUR_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
WORLD = {
    "id": "7e2b5c1a-3f4d-4a8e-9b6c-1d0e2f3a4b5c",
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
            "id": "greeting",
            "name": "Dawn",
            "content": "The caravan halts at the edge of the salt flats.",
            "role": "greeting",
            "section": "chat-history",
        },
    ],
}


def main() -> None:
    alice = User.objects.create_user("alice", "alice@example.com", "password")
    world = import_world(alice, WORLD)
    publish_world(world, "First release")
    harbour = import_world(alice, {**WORLD, "id": HARBOUR_ID, "name": "Quiet Harbour"})
    set_world_portrait(harbour, image_upload())
    publish_world(harbour, "First release")
    ids = {"world": world.pk, "harbour": harbour.pk}
    print(json.dumps({"cookie": login_cookie(alice), **ids}))


if __name__ == "__main__":
    main()
