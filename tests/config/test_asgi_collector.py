"""The play process keeps full garbage collections off the streaming path (config.asgi)."""

from __future__ import annotations

import gc


def test_importing_the_app_freezes_what_it_imported_and_spaces_young_collections() -> None:
    import config.asgi  # noqa: F401

    assert gc.get_freeze_count() > 10_000  # the app, Django and the SDKs' types
    assert gc.get_threshold()[0] >= 10_000
