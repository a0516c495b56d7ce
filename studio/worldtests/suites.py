"""World tests as a service (issue 13 §3): saving a creator's tests, and running them on Celery.

The engine is the only validator (``engine.worldtests.parse_suite``): a test is stored as the
engine reads it back, its errors come back with their paths inside the test (``steps[1].say``).
``start_run`` freezes the draft and the tests into a ``WorldTestRun`` and queues the task
(studio.tasks); ``perform_run`` (studio.worldtests.runs, re-exported here) is the task's body,
idempotent: a finished run is left as it is.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from engine.world import WorldValidationError
from engine.worldtests import FORMAT, SuiteError, dump_test, parse_suite
from studio.models import World
from studio.tasks import run_world_tests
from studio.worlds import export_world_json
from studio.worldtests.models import WorldTest, WorldTestRun
from studio.worldtests.runs import perform_run as perform_run

MAX_TESTS = 100
MAX_STEPS = 200
KEPT_RUNS = 10


def tests_of(world: World) -> QuerySet[WorldTest]:
    return WorldTest.objects.filter(world=world).order_by("position", "pk")


def suite_json(world: World) -> dict[str, Any]:
    """The world's tests as a suite file, the one ``python -m engine test --tests`` reads."""
    return {"format": FORMAT, "version": 1, "tests": [t.definition for t in tests_of(world)]}


def checked_test(data: Any) -> dict[str, Any]:
    """The test as the engine reads it back; SuiteError with paths inside the test."""
    try:
        [test] = parse_suite({"tests": [data]}).tests
    except SuiteError as exc:
        raise SuiteError([line.removeprefix("tests[0].") for line in exc.errors]) from None
    if len(test.steps) > MAX_STEPS:
        raise SuiteError([f"steps: at most {MAX_STEPS} steps in one test"])
    return dump_test(test)


def save_test(world: World, data: Any, test: WorldTest | None = None) -> WorldTest:
    """Create or replace one test of ``world``; SuiteError names what is wrong."""
    definition = checked_test(data)
    if test is None:
        if tests_of(world).count() >= MAX_TESTS:
            raise SuiteError([f"a world holds at most {MAX_TESTS} tests"])
        last = tests_of(world).last()
        test = WorldTest(world=world, position=(last.position + 1) if last else 0)
    test.name, test.definition = definition["name"], definition
    test.save()
    return test


def delete_test(test: WorldTest) -> None:
    test.delete()


def replace_tests(world: World, suite: Any) -> int:
    """Make the world's tests exactly ``suite``'s (the demo worlds); SuiteError if it is bad."""
    tests = [dump_test(t) for t in parse_suite(suite).tests]
    with transaction.atomic():
        if [t.definition for t in tests_of(world)] == tests:
            return 0
        tests_of(world).delete()
        WorldTest.objects.bulk_create(
            WorldTest(world=world, position=n, name=t["name"], definition=t)
            for n, t in enumerate(tests)
        )
    return len(tests)


# --- runs ----------------------------------------------------------------------------------------


def latest_run(world: World) -> WorldTestRun | None:
    return WorldTestRun.objects.filter(world=world).first()


def start_run(world: World, user: Any) -> WorldTestRun:
    """Freeze the draft and its tests, queue the run (it runs at once in embedded mode)."""
    try:
        definition = export_world_json(world)
    except WorldValidationError as exc:
        definition = {}
        error = "The draft does not load: " + "; ".join(exc.errors)
    else:
        error = ""
    run = WorldTestRun.objects.create(
        world=world,
        started_by=user if getattr(user, "is_authenticated", False) else None,
        definition=definition,
        suite=suite_json(world),
        status="error" if error else "queued",
        error=error,
        finished=timezone.now() if error else None,
    )
    old = WorldTestRun.objects.filter(world=world).values_list("pk", flat=True)[KEPT_RUNS:]
    WorldTestRun.objects.filter(pk__in=list(old)).delete()
    if not error:
        run_world_tests.apply_async((run.pk,), retry=False)
        run.refresh_from_db()
    return run
