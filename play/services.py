"""What play offers the studio (issue 36, "The house"): the one play module studio imports.

The studio's evaluations read provider settings, locks and the quota through here, its UI
editor the sandbox runtime, its preview a playtest's memory. Everything else in play is
private to it (play.models stays importable for foreign keys and rows); tests/config/
test_import_graph.py holds the studio to this.

Each name is imported from its module when first asked for: the studio's login throttle reads
the quota's address at start-up (``StudioConfig.ready``), and importing every module here then
would load the providers and the sessions (two seconds) into every ``manage.py`` step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from config.lazy import lazy_exports

if TYPE_CHECKING:
    from play import quota as quota
    from play.crypto import decrypt_secret as decrypt_secret
    from play.customui import MAX_FILE_CHARS as MAX_FILE_CHARS
    from play.customui import MAX_FILES as MAX_FILES
    from play.customui import ui_sources as ui_sources
    from play.locks import lock_backend as lock_backend
    from play.locks import lock_ttl_ms as lock_ttl_ms
    from play.playtests import playtest_memory as playtest_memory
    from play.providers import ProviderConfig as ProviderConfig
    from play.providers import build_provider as build_provider
    from play.quota import request_address as request_address
    from play.views.sandbox import BOOT as BOOT
    from play.views.sandbox import RUNTIME_SCRIPTS as RUNTIME_SCRIPTS
    from play.views.sandbox import sandbox_csp as sandbox_csp

_HOME = {
    "quota": "play",
    "decrypt_secret": "play.crypto",
    "MAX_FILE_CHARS": "play.customui",
    "MAX_FILES": "play.customui",
    "ui_sources": "play.customui",
    "lock_backend": "play.locks",
    "lock_ttl_ms": "play.locks",
    "playtest_memory": "play.playtests",
    "ProviderConfig": "play.providers",
    "build_provider": "play.providers",
    "request_address": "play.quota",
    "BOOT": "play.views.sandbox",
    "RUNTIME_SCRIPTS": "play.views.sandbox",
    "sandbox_csp": "play.views.sandbox",
}
__all__ = sorted(_HOME)

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__ = lazy_exports(__name__, _HOME)
