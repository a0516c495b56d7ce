"""Seed tests/browser/test_evaluations.py's database after ``migrate``; run as a script.

Alice owns a copy of Brackenford and has her own provider (Anthropic's protocol at the URL in
OWN_MODEL_URL, the loopback model server). Prints one JSON object: her session cookie and the
world's id.
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

from play.providers import save_provider_setting  # noqa: E402
from studio.demo import gm_demo_definition  # noqa: E402
from studio.worlds import import_world  # noqa: E402
from tests.browser.seed_gm import login_cookie  # noqa: E402


def main() -> None:
    alice = User.objects.create_user("alice", "alice@example.com", "password")
    save_provider_setting(
        alice,
        provider="anthropic",
        base_url=os.environ["OWN_MODEL_URL"],
        model="own-model",
        api_key="sk-own",
    )
    world = import_world(alice, gm_demo_definition())
    print(json.dumps({"cookie": login_cookie(alice), "world": world.pk}))


if __name__ == "__main__":
    main()
