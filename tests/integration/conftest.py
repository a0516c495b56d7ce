"""The integration tier talks to real PostgreSQL and Redis; under CI a missing one fails."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import redis


@pytest.fixture(scope="session", autouse=True)
def real_services() -> None:
    url = os.environ.get("REDIS_URL", "")
    if not url or not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        pytest.fail("integration tests need DATABASE_URL (postgres) and REDIS_URL")
    redis.Redis.from_url(url).ping()


@pytest.fixture(autouse=True)
def tasks_go_to_the_broker(settings: Any) -> Iterator[None]:
    """Tasks here are queued on a real broker for a real worker, never run in the test process,
    whatever an earlier test's settings left in the Celery app's lazily read configuration."""
    from config.celery import app

    eager = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = eager
