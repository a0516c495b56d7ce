"""Start-up stays light: the model SDKs load when a model is called, not with the URL tree.

Every `manage.py` step, daphne's runserver and each test worker import config.urls; the openai
and anthropic SDKs took two of its three seconds (issue 36, bench/startup.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import sys, django; django.setup(); import config.urls; "
    "print(' '.join(m for m in ('openai', 'anthropic') if m in sys.modules))"
)


def test_importing_the_url_tree_loads_no_model_sdk() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def _sdks_after_importing_the_asgi_app(env: dict[str, str]) -> str:
    probe = (
        "import sys, config.asgi; "
        "print(' '.join(m for m in ('openai', 'anthropic') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_the_development_server_serves_without_loading_the_sdks(tmp_path: Path) -> None:
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "1",
        "FABULA_SECRETS_DIR": str(tmp_path),
    }
    assert _sdks_after_importing_the_asgi_app(env) == ""


def test_a_production_play_process_loads_the_sdks_before_freezing_the_collector() -> None:
    env = {"DJANGO_SETTINGS_MODULE": "tests.settings", "DEBUG": "0"}
    assert _sdks_after_importing_the_asgi_app(env) == "openai anthropic"
