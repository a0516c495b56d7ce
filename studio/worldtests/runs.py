"""The body of the ``studio.run_world_tests`` task (issue 13 §3): run a frozen suite, store it.

Apart from studio.worldtests.suites, which queues the task (studio.tasks), so the dependency runs
one way: suites → tasks → runs.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from django.db import transaction
from django.utils import timezone

from engine.world import WorldValidationError, load_world
from engine.worldtests import SuiteError, parse_suite, run_suite
from studio.worldtests.models import WorldTestRun

log = logging.getLogger("studio.worldtests.suites")  # the logger's name before the split


def perform_run(run_id: int) -> str:
    """Run the frozen tests of ``run_id`` and store the results; returns the final status."""
    with transaction.atomic():
        run = WorldTestRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.is_final:
            return run.status if run is not None else "missing"
        run.status = "running"
        run.save(update_fields=["status"])
    try:
        world = load_world(run.definition)
        suite = parse_suite(run.suite)
    except (WorldValidationError, SuiteError) as exc:
        return _finish(run, "error", {}, "; ".join(exc.errors))
    try:
        result = async_to_sync(run_suite)(world, suite)
    except Exception as exc:  # a bug must not leave the run "running" for ever
        log.exception("world test run %s failed", run_id)
        return _finish(run, "error", {}, f"The tests could not run: {type(exc).__name__}")
    status = "passed" if result.passed else "failed"
    return _finish(run, status, result.model_dump(mode="json"), "")


def _finish(run: WorldTestRun, status: str, results: dict[str, Any], error: str) -> str:
    run.status, run.results, run.error, run.finished = status, results, error, timezone.now()
    run.save(update_fields=["status", "results", "error", "finished"])
    return status
