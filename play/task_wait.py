"""How long a background save waits for the session's turn to end (play.tasks, play.memory).

Shared by the story compaction (play.tasks) and the session memory (play.memory); it lives
apart so that neither of them imports the other for it (play.tasks imports play.memory so the
worker finds its task, and the dependency runs that way only).
"""

from __future__ import annotations

from celery import current_app

SAVE_WAIT_SECONDS = 20.0  # how long a summary waits for a turn to end before the task retries


def save_wait_seconds() -> float:
    """How long a summary waits for the session's turn to end before it retries later.

    An eager Celery (the embedded default, tests) runs the task on the play process's database
    thread, which the waiting turn itself needs to start: there the task does not wait, it
    gives up at once and the next turn queues it again (the work is still due then).
    """
    if current_app.conf.task_always_eager:
        return 0.0
    return SAVE_WAIT_SECONDS
