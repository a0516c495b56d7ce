"""What an evaluation spends of the site's key (issue 32 §2: "evaluation actions on the site key
count against the user's daily quota and the site budget like play turns").

Every request an evaluation sends to the site's key (the master's, the automatic player's, the
judge's, the judge's κ on the labelled set) is one action against its owner's daily quota, a new
account's first-day share and the site's budget, the subjects a play turn counts (play.quota).
It counts by request, not by price, so an unpriced model is counted too. A request and the
provider's own retries of it are one action, as a play turn's are. The user's own key is not
counted here: it is their money.

Two checks. ``check_start`` refuses a run up front, with the numbers, when its estimate does not
fit in what is left today, and when the user already has a run on the site's key going.
``ChargedProvider`` counts each request before it is sent, on the worker: an estimate that was
too low stops the run (status ``budget``, the reason in ``Evaluation.error``), never overspends.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from engine.llm.base import ChatRequest, Chunk, Provider
from play.models import DailyActionCount
from play.services import ProviderConfig, build_provider, quota
from studio.evaluations.stops import REASON_PREFIX as REASON_PREFIX
from studio.evaluations.stops import stop_reason as stop_reason

if TYPE_CHECKING:
    from studio.evaluations.request import Request

SITE = "site:"
# An estimate, not a bound: a game master's action is typically a tool call, then log_event.
MASTER_CALLS = 1
GM_MASTER_CALLS = 2
GOING = ("queued", "running")


class Refused(Exception):
    """The run may not start; the message says why, with the numbers."""


class OutOfQuota(Exception):
    """A request to the site's key was refused: ``reason`` is user, new or site."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def on_site_key(key: str) -> bool:
    return str(key).startswith(SITE)


def uses_site_key(model_keys: list[Any], player: str, judge: str) -> bool:
    return any(on_site_key(k) for k in [*model_keys, player, judge])


# --- before the run -------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def labelled_calls() -> int:
    """The judge's requests to measure κ on the labelled set: one per step that did not fail."""
    from engine.evals.labelled import load_labelled

    return sum(1 for item in load_labelled() for step in item.transcript.steps if not step.failed)


def estimate_calls(asked: Request, definition: Mapping[str, Any]) -> int:
    """Requests the run would send to the site's key, about."""
    route = asked.kind == "route"
    per_model = len(asked.route) if route else asked.games * asked.actions
    master = GM_MASTER_CALLS if definition.get("gameMaster") else MASTER_CALLS
    player = 0 if route or not on_site_key(asked.player) else 1
    judge = 1 if on_site_key(asked.judge) else 0
    calls = sum(
        per_model * ((master if on_site_key(key) else 0) + player + judge)
        for key in asked.model_keys
    )
    return calls + (labelled_calls() if judge else 0)


def owner_limits(user: Any, now: datetime | None = None) -> dict[str, int]:
    """What a request of ``user``'s on the site's key counts against, with each limit."""
    now = now or timezone.now()
    subjects = quota.account_subjects(f"user:{user.pk}", user.date_joined, now)
    return quota.limits(subjects, on_site_key=True)


def check_start(user: Any, asked: Request, definition: Mapping[str, Any]) -> None:
    """Refuse a run on the site's key that would not fit, or a second one; call it inside the
    transaction that creates the run (it locks the user's row, so two starts queue)."""
    if not uses_site_key(asked.model_keys, asked.player, asked.judge):
        return
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    if _site_run_going(user):
        raise Refused(
            gettext(
                "You already have an evaluation running on the site's key. Wait for it to end, "
                "or cancel it, before you start another."
            )
        )
    needed, now = estimate_calls(asked, definition), timezone.now()
    for subject, limit, left in _left(owner_limits(user, now), now):
        if needed > left:
            raise Refused(refusal(_reason(subject), needed, left, limit))


def _site_run_going(user: Any) -> bool:
    from studio.evaluations.models import Evaluation

    going = Evaluation.objects.filter(owner=user, status__in=GOING)
    return any(uses_site_key(run.model_keys, run.player, run.judge) for run in going)


def _left(limits: Mapping[str, int], now: datetime) -> list[tuple[str, int, int]]:
    """(subject, limit, actions left today) of each subject with a limit, tightest first."""
    counts = dict(
        DailyActionCount.objects.filter(
            subject__in=list(limits), day=quota.utc_day(now)
        ).values_list("subject", "count")
    )
    rows = [(s, n, max(0, n - counts.get(s, 0))) for s, n in limits.items() if n]
    return sorted(rows, key=lambda row: row[2])


def _reason(subject: str) -> str:
    if subject == quota.SITE_SUBJECT:
        return "site"
    return "new" if subject.startswith(quota.NEW_ACCOUNT_PREFIX) else "user"


def refusal(reason: str, needed: int, left: int, limit: int) -> str:
    """The up-front refusal, with the numbers."""
    if reason == "site":
        text = ngettext(
            "This evaluation needs about %(needed)d model call on the site's key, but the site "
            "has only %(left)d of today's %(limit)d left for everyone. Play fewer games or "
            "actions, or use your own key.",
            "This evaluation needs about %(needed)d model calls on the site's key, but the site "
            "has only %(left)d of today's %(limit)d left for everyone. Play fewer games or "
            "actions, or use your own key.",
            needed,
        )
    elif reason == "new":
        text = ngettext(
            "This evaluation needs about %(needed)d model call on the site's key; your account "
            "is new and has %(left)d of its %(limit)d first-day actions left. Play fewer games "
            "or actions, or use your own key.",
            "This evaluation needs about %(needed)d model calls on the site's key; your account "
            "is new and has %(left)d of its %(limit)d first-day actions left. Play fewer games "
            "or actions, or use your own key.",
            needed,
        )
    else:
        text = ngettext(
            "This evaluation needs about %(needed)d model call on the site's key; you have "
            "%(left)d of your %(limit)d actions left today. Play fewer games or actions, use "
            "your own key, or come back after midnight UTC.",
            "This evaluation needs about %(needed)d model calls on the site's key; you have "
            "%(left)d of your %(limit)d actions left today. Play fewer games or actions, use "
            "your own key, or come back after midnight UTC.",
            needed,
        )
    return text % {"needed": needed, "left": left, "limit": limit}


# --- while it runs --------------------------------------------------------------------------


def charge_request(limits: Mapping[str, int], now: datetime) -> str | None:
    """Count one request; the reason it is refused (user, new or site), or None when counted."""
    if quota.reserve(limits, now) is not None:
        return None
    spent = [s for s, n, left in _left(limits, now) if not left]
    return _reason(spent[0]) if spent else "site"


class ChargedProvider:
    """A site-key provider that counts each request before sending it, and refuses past the
    quota or the budget (OutOfQuota) instead of sending it."""

    def __init__(self, inner: Provider, limits: Mapping[str, int]) -> None:
        self.inner, self.limits = inner, dict(limits)
        self.name, self.model = inner.name, inner.model

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        refused = await database_sync_to_async(charge_request)(self.limits, timezone.now())
        if refused is not None:
            raise OutOfQuota(refused)
        async for chunk in self.inner.stream(request):
            yield chunk


def build(config: ProviderConfig, limits: Mapping[str, int]) -> Provider:
    """The engine provider for ``config``, counted when it is on the site's key."""
    provider = build_provider(config)
    if config.kind == "offline" or config.guarded:
        return provider  # offline, or the user's own key (guarded): not the site's money
    return ChargedProvider(provider, limits)


def stop_for_quota(evaluation_id: int, reason: str) -> None:
    """End the run: no new action starts, and the page says why."""
    from studio.evaluations.models import GAME_ENDED, Evaluation

    with transaction.atomic():
        row = Evaluation.objects.select_for_update().get(pk=evaluation_id)
        if not row.is_final:
            row.status, row.finished = "budget", timezone.now()
            row.error = REASON_PREFIX + reason
            row.save(update_fields=["status", "finished", "error", "updated"])
        row.game_rows.exclude(status__in=GAME_ENDED).update(status="stopped")
