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
