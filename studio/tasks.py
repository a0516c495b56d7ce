"""The studio's Celery tasks (architecture "Background work"); the worker finds them here.

``run_world_tests`` runs a creator's world tests (issue 13 §3; studio.worldtests.runs). It is
idempotent: the run froze the world and the tests when it was asked for, and a run already
finished is left as it is, so a task delivered twice (``acks_late``) reports once.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from studio.worldtests.runs import perform_run


@shared_task(  # type: ignore[untyped-decorator]
    acks_late=True,
    reject_on_worker_lost=True,
    name="studio.run_world_tests",
)
def run_world_tests(run_id: int) -> dict[str, Any]:
    return {"run": run_id, "status": perform_run(run_id)}
