"""The evaluation's Celery tasks (issue 13 §2: "Runs on Celery with real progress (per game, per
action) … cancellable, resumable after a worker restart (tasks idempotent per game and action,
``acks_late``, retries with backoff on provider errors, a budget cap that stops spending)").

``run_evaluation`` queues the next action of every game still going. ``play_action`` plays one
action (studio.evaluations.steps) and queues the game's next one, so a worker that dies loses at
most the action it was playing: ``acks_late`` with ``reject_on_worker_lost`` hands it to another
worker, which skips it if it was stored meanwhile. A provider error that may pass is retried
with exponential backoff; past the retries the action is stored as failed and its game ends.
A request the site key's quota or budget refuses (studio.evaluations.spending) stops the run.
When every game has ended, ``finish_evaluation`` measures κ and closes the run.
``clean_stale_evaluations`` (Celery beat) closes runs whose workers stopped reporting.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from asgiref.sync import async_to_sync
from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from engine.evals.runner import ActionFailed
from engine.llm.base import ProviderError
from play.services import lock_ttl_ms
from studio.evaluations.agreement import measure_agreement
from studio.evaluations.choices import ChoiceError
from studio.evaluations.models import GAME_ENDED, Evaluation
from studio.evaluations.spending import OutOfQuota, stop_for_quota
from studio.evaluations.steps import (
    Busy,
    all_games_ended,
    evaluation_of,
    record_failure,
    run_action,
)

log = logging.getLogger(__name__)

RETRIES = 4
BUSY_RETRIES = 60  # a dead worker's lease expires within FABULA_TURN_LOCK_TTL_MS
TASK = {"bind": True, "acks_late": True, "reject_on_worker_lost": True, "ignore_result": True}


def backoff(retries: int) -> int:
    """Seconds before retry number ``retries + 1``: 2, 4, 8, 16… capped at a minute."""
    base = int(getattr(settings, "FABULA_EVAL_RETRY_BASE", 2))
    return int(min(60, base * 2**retries))


def _retry(task: Any, exc: Exception) -> Any:
    """Retry ``task`` after its backoff. Embedded (eager) mode runs the retry at once: Celery
    cannot raise a retry through an eager call that propagates errors."""
    if task.request.is_eager:
        return task.apply(args=task.request.args, retries=task.request.retries + 1).result
    raise task.retry(exc=exc, countdown=backoff(task.request.retries)) from exc


@shared_task(name="studio.evaluations.run", **TASK)  # type: ignore[untyped-decorator]
def run_evaluation(self: Any, evaluation_id: int) -> int:
    """Queue the next action of each game still going; returns how many were queued."""
    starts = _begin(evaluation_id)
    for game_id, index in starts:
        play_action.delay(game_id, index)
    if not starts:
        finish_evaluation.delay(evaluation_id)
    return len(starts)


def _begin(evaluation_id: int) -> list[tuple[int, int]]:
    with transaction.atomic():
        evaluation = Evaluation.objects.select_for_update().get(pk=evaluation_id)
        if evaluation.is_final:
            return []
        if evaluation.status == "queued":
            evaluation.status = "running"
            evaluation.save(update_fields=["status", "updated"])
    games = evaluation.game_rows.exclude(status__in=GAME_ENDED).annotate(n=Count("action_rows"))
    return [(game.pk, game.n) for game in games.order_by("model_index", "number")]


@shared_task(name="studio.evaluations.play_action", max_retries=RETRIES, **TASK)  # type: ignore[untyped-decorator]
def play_action(self: Any, game_id: int, index: int) -> str:
    """Play action ``index`` of a game, then queue what comes next."""
    try:
        what = async_to_sync(run_action)(game_id, index)
    except Busy as exc:
        # Another worker holds the game: it carries the game on, or it died and its lease will
        # expire (then this task, redelivered from it, must play the action).
        if self.request.is_eager:
            return "busy"
        wait = max(1, lock_ttl_ms() // 1000)
        raise self.retry(exc=exc, countdown=wait, max_retries=BUSY_RETRIES) from exc
    except (ActionFailed, ProviderError) as exc:
        if getattr(exc, "retryable", False) and self.request.retries < self.max_retries:
            return str(_retry(self, exc))
        action, tactic = getattr(exc, "move", ("", None))  # set by steps.play: the move made
        record_failure(game_id, index, getattr(exc, "message", str(exc)), action, tactic)
        what = "failed"
    except ChoiceError as exc:
        record_failure(game_id, index, str(exc))
        what = "failed"
    except OutOfQuota as exc:  # the site key's quota or budget is gone: the run stops here
        stop_for_quota(evaluation_of(game_id), exc.reason)
        what = "quota"
    _carry_on(game_id, index, what)
    return what


def _carry_on(game_id: int, index: int, what: str) -> None:
    evaluation_id = evaluation_of(game_id)
    total = Evaluation.objects.values_list("actions", flat=True).get(pk=evaluation_id)
    if what in ("played", "recorded") and index + 1 < total:
        play_action.delay(game_id, index + 1)
    elif all_games_ended(evaluation_id):
        finish_evaluation.delay(evaluation_id)


@shared_task(name="studio.evaluations.finish", max_retries=RETRIES, **TASK)  # type: ignore[untyped-decorator]
def finish_evaluation(self: Any, evaluation_id: int) -> str:
    """Measure κ (once) and mark a run that played to its end done."""
    try:
        measure_agreement(evaluation_id)
    except ProviderError as exc:
        if exc.retryable and self.request.retries < self.max_retries:
            return str(_retry(self, exc))
        # ``agreement=None`` on a JSON field matches JSON null, not SQL NULL: never a row.
        Evaluation.objects.filter(pk=evaluation_id, agreement__isnull=True).update(
            agreement={"error": exc.message}
        )
    except ChoiceError as exc:
        Evaluation.objects.filter(pk=evaluation_id, agreement__isnull=True).update(
            agreement={"error": str(exc)}
        )
    done = Evaluation.objects.filter(pk=evaluation_id, status__in=("queued", "running"))
    done.update(status="done", finished=timezone.now(), updated=timezone.now())
    return str(Evaluation.objects.values_list("status", flat=True).get(pk=evaluation_id))


@shared_task(name="studio.evaluations.clean_stale")  # type: ignore[untyped-decorator]
def clean_stale_evaluations() -> int:
    """Close runs with no progress for FABULA_EVAL_STALE_MINUTES (their workers are gone and
    nothing will redeliver them): status ``stale``, games stopped. Returns how many."""
    minutes = int(getattr(settings, "FABULA_EVAL_STALE_MINUTES", 60))
    cutoff = timezone.now() - timedelta(minutes=minutes)
    stale = Evaluation.objects.filter(status__in=("queued", "running"), updated__lt=cutoff)
    count = 0
    for evaluation in stale:
        with transaction.atomic():
            evaluation.game_rows.exclude(status__in=GAME_ENDED).update(status="stopped")
            count += Evaluation.objects.filter(pk=evaluation.pk, updated__lt=cutoff).update(
                status="stale", finished=timezone.now()
            )
    if count:
        log.info("closed %d stale evaluation(s)", count)
    return count
