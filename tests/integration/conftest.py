"""The integration tier talks to real PostgreSQL and Redis; under CI a missing one fails."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import redis


@pytest.fixture(scope="session", autouse=True)
def real_services() -> None:
    url = os.environ.get("REDIS_URL", "")
    if not url or not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        pytest.fail("integration tests need DATABASE_URL (postgres) and REDIS_URL")
    redis.Redis.from_url(url).ping()


@pytest.fixture(autouse=True)
def tasks_go_to_the_broker() -> Iterator[None]:
    """Tasks here are queued on a real broker for a real worker, never run in the test process,
    whatever an earlier test's settings left in the Celery app's lazily read configuration."""
    from django.conf import settings as django_settings

    from config.celery import app

    # Not the ``settings`` fixture: some tests take a parameter of that name.
    eager, setting = app.conf.task_always_eager, django_settings.CELERY_TASK_ALWAYS_EAGER
    django_settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = eager
    django_settings.CELERY_TASK_ALWAYS_EAGER = setting
