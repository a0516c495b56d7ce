"""Add the conformance world of issue 15 to a database seeded by tests/browser/seed.py.

Imports tests/browser/fixtures/conformance_world.json with the UI of conformance_ui.jsx for
Alice, gives it one audio asset, publishes it and starts an offline session with a persona.
Prints ``{"session": …, "world": …, "asset": "@asset:…", "asset_url": …}``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import django

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.contrib.auth.models import User  # noqa: E402

from play.sessions import start_session  # noqa: E402
from studio.assets import store_audio_asset  # noqa: E402
from studio.publishing import publish_world  # noqa: E402
from studio.worlds import import_world  # noqa: E402
from tests.factories import audio_upload  # noqa: E402


def main() -> None:
    alice = User.objects.get(username="alice")
    data = json.loads((HERE / "fixtures" / "conformance_world.json").read_text())
    data["rootComponent"]["files"]["index.jsx"] = (
        HERE / "fixtures" / "conformance_ui.jsx"
    ).read_text()
    world = import_world(alice, data)
    asset = store_audio_asset(world, audio_upload())
    session = start_session(
        alice, publish_world(world), mode="offline", persona_data={"name": "Ilse"}
    )
    info = {"session": str(session.pk), "world": world.pk, "asset": asset.ref}
    print(json.dumps(info | {"asset_url": asset.file.url}))


if __name__ == "__main__":
    main()
