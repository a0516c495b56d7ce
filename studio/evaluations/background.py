"""Where an evaluation runs once it is started (issue 35 §6).

With a worker (Redis), ``run_evaluation.delay`` only queues the run and the Start button's
request returns at once. In the embedded default Celery is eager: the same call would play
the whole run inside that request (a 10 × 40 offline run held the button for 24 s and the
progress bar was only ever seen at 100 %). So there the run goes to a thread of its own,
started after the request's transaction commits, and the page polls its progress as it does
with a worker. A server that stops mid-run leaves it "running" until
``clean_stale_evaluations`` closes it, as a dead worker would. ``FABULA_EVAL_IN_THREAD``
(on by default) lets unit tests keep the eager, in-request run they assert on.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connections, transaction

log = logging.getLogger(__name__)


def launch(evaluation_id: int) -> None:
    """Queue the run, or in eager mode start it in a thread once the request commits."""
    from studio.evaluations.tasks import run_evaluation

    eager = bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))
    if not eager or not getattr(settings, "FABULA_EVAL_IN_THREAD", True):
        run_evaluation.delay(evaluation_id)
        return
    transaction.on_commit(lambda: _start_thread(evaluation_id))


def _start_thread(evaluation_id: int) -> threading.Thread:
    thread = threading.Thread(
        target=_run, args=(evaluation_id,), name=f"evaluation-{evaluation_id}", daemon=True
    )
    thread.start()
    return thread


def _run(evaluation_id: int) -> None:
    from studio.evaluations.tasks import run_evaluation

    close_old_connections()
    try:
        run_evaluation.delay(evaluation_id)  # eager: plays every action here, in order
    except Exception:
        log.exception("evaluation %s stopped with an error", evaluation_id)
    finally:
        connections.close_all()
