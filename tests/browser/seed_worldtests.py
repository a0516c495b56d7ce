"""Seed tests/browser/test_world_tests.py's database after ``manage.py load_demo``; run as a
script. Prints one JSON object: the session cookie of the demo user (who owns the demo worlds)
and the id of the Lantern's draft."""

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

from studio.demo import DEMO_USERNAME, demo_definition  # noqa: E402
from studio.models import World  # noqa: E402
from tests.browser.seed_gm import login_cookie  # noqa: E402


def main() -> None:
    demo = User.objects.get(username=DEMO_USERNAME)
    lantern = World.objects.get(owner=demo, uid=demo_definition().id)
    print(json.dumps({"cookie": login_cookie(demo), "world": lantern.pk}))


if __name__ == "__main__":
    main()
