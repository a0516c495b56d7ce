"""The play process keeps garbage collections and the GIL off the streaming path (config.asgi)."""

from __future__ import annotations

import gc


def test_importing_the_app_freezes_what_it_imported_and_spaces_young_collections() -> None:
    import config.asgi  # noqa: F401

    assert gc.get_freeze_count() > 10_000  # the app, Django and the SDKs' types
    assert gc.get_threshold()[0] >= 10_000


def test_the_play_process_hands_the_gil_back_within_half_a_millisecond() -> None:
    """The database thread must not hold the event loop's sockets up to 5 ms per write."""
    import sys

    import config.asgi  # noqa: F401

    assert sys.getswitchinterval() <= 0.001
