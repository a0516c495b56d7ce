"""Each pytest-xdist worker keeps its own Redis database (tests/support/xdist.py, Makefile)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.xdist import worker_redis_url

ROOT = Path(__file__).resolve().parents[2]


def test_each_worker_takes_the_database_after_the_base_plus_its_number() -> None:
    assert worker_redis_url("redis://127.0.0.1:6379/0", "gw0") == "redis://127.0.0.1:6379/1"
    assert worker_redis_url("redis://127.0.0.1:6379/0", "gw1") == "redis://127.0.0.1:6379/2"
    assert worker_redis_url("redis://:pw@cache:6380/3", "gw2") == "redis://:pw@cache:6380/6"
    assert worker_redis_url("redis://127.0.0.1:6379", "gw0") == "redis://127.0.0.1:6379/1"


def test_a_worker_past_the_sixteen_databases_is_refused() -> None:
    with pytest.raises(RuntimeError, match="fewer workers"):
        worker_redis_url("redis://127.0.0.1:6379/0", "gw15")


def test_the_test_settings_give_the_worker_its_database_and_its_servers_the_same() -> None:
    probe = (
        "import os, tests.settings as s; "
        "print(s.REDIS_URL, s.CELERY_BROKER_URL, os.environ['REDIS_URL'], "
        "s.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0]['address'])"
    )
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:6379/0", "PYTEST_XDIST_WORKER": "gw1"}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["redis://127.0.0.1:6379/2"] * 4
