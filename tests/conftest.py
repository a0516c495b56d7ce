"""Shared fixtures: the engine's fake clock and seeded rng, and the integration-tier gate."""

from __future__ import annotations

import os
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest


class FakeClock:
    """A clock that only moves when told to."""

    def __init__(self, now: datetime | None = None):
        self.now = now or datetime(2026, 5, 13, 14, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


def SeededRng(seed: int = 42) -> random.Random:
    return random.Random(seed)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def rng() -> random.Random:
    return SeededRng()


def integration_services_configured() -> bool:
    return bool(
        os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark tests by folder; outside CI, skip the integration tier when its services are unset."""
    in_ci = os.environ.get("CI", "").lower() == "true"
    for item in items:
        path = str(item.fspath)
        if f"{os.sep}integration{os.sep}" in path:
            item.add_marker(pytest.mark.integration)
            if not integration_services_configured() and not in_ci:
                item.add_marker(
                    pytest.mark.skip(reason="set DATABASE_URL (postgres) and REDIS_URL to run")
                )
        if f"{os.sep}browser{os.sep}" in path:
            item.add_marker(pytest.mark.browser)


# --- the fixed cast of the Django-side tests (studio, play) ------------------------------


@pytest.fixture
def alice(db: None) -> Any:
    """The owner of ``world``."""
    from tests.factories import make_user

    return make_user("alice")


@pytest.fixture
def bob(db: None) -> Any:
    """A collaborator: another creator, who reads Alice's published worlds but cannot edit."""
    from tests.factories import make_user

    return make_user("bob")


@pytest.fixture
def charlie(db: None) -> Any:
    """A stranger: Alice's drafts do not exist for him."""
    from tests.factories import make_user

    return make_user("charlie")


@pytest.fixture
def world(alice: Any) -> Any:
    """Alice's draft with an entry, a variable and a rule."""
    from tests.factories import make_world

    return make_world(alice)


@pytest.fixture(autouse=True)
def celery_runs_in_the_test() -> Any:
    """A task a unit test queues runs at once in the test process, as in the embedded mode,
    even when REDIS_URL is set (CI); the integration tier sends its tasks to a real worker."""
    from django.conf import settings as django_settings

    from config.celery import app

    # Not the ``settings`` fixture: some tests take a parameter of that name.
    eager, setting = app.conf.task_always_eager, django_settings.CELERY_TASK_ALWAYS_EAGER
    django_settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = eager
    django_settings.CELERY_TASK_ALWAYS_EAGER = setting


# --- which file a worker takes next, and where a run's time goes -------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-durations",
        action="store_true",
        help="write each test file's seconds into tests/durations.json (what the scheduler reads)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("store_durations") and not hasattr(config, "workerinput"):
        from tests.support.schedule import DurationRecorder

        config.pluginmanager.register(DurationRecorder(), "fabula-durations")


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: unknown under -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` hands out the costliest files first (tests/support/schedule.py)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.support.schedule import CostScheduling

    return CostScheduling(config, log)


# FABULA_TIMELINE=path: one JSON line per test, with its worker, start, end and CPU.


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    path = os.environ.get("FABULA_TIMELINE")
    if not path:
        yield
        return
    import json
    import time

    started, cpu = time.time(), time.process_time()
    yield
    line = {
        # Not PYTEST_XDIST_WORKER: a pytest a test starts (tests/engine/test_native.py) inherits it.
        "worker": getattr(item.config, "workerinput", {}).get("workerid", "main"),
        "test": item.nodeid,
        "start": started,
        "end": time.time(),
        "cpu": time.process_time() - cpu,
    }
    with open(path, "a") as out:
        out.write(json.dumps(line) + "\n")
