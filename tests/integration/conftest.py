"""The integration tier talks to real PostgreSQL and Redis; under CI a missing one fails."""

from __future__ import annotations

import os

import pytest
import redis


@pytest.fixture(scope="session", autouse=True)
def real_services() -> None:
    url = os.environ.get("REDIS_URL", "")
    if not url or not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        pytest.fail("integration tests need DATABASE_URL (postgres) and REDIS_URL")
    redis.Redis.from_url(url).ping()
