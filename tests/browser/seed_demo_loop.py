"""Seed tests/browser/test_gm_demo_loop.py's database after ``manage.py load_demo``.

Prints the session cookies of the demo worlds' creator (the ``demo`` user) and of Alice, a
player.
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

from studio.demo import DEMO_USERNAME  # noqa: E402
from tests.browser.seed_gm import login_cookie  # noqa: E402


def main() -> None:
    creator = User.objects.get(username=DEMO_USERNAME)
    alice = User.objects.create_user("alice", "alice@example.com", "password")
    print(json.dumps({"creator": login_cookie(creator), "alice": login_cookie(alice)}))


if __name__ == "__main__":
    main()
