"""Background work of play sessions (architecture "Background work"): story compaction.

When a session's history passes its budget, the older messages are folded into
``SessionState.compaction_summary`` (prompt step 8) and marked ``compacted``, so prompts stay
within ``maxContext`` and the cacheable prefix stays put. The task is idempotent (keyed by session
and message range: a range already folded is a no-op) and ``acks_late``: a worker that dies
mid-task leaves it to be delivered again (config.settings, visibility timeout).

A player never waits on it: the slow part, the summary, runs under a lock of its own (one
compaction of a session at a time, even when a task is delivered twice) and not under the
session's lock. Only the write, a few milliseconds, takes the session's lock, between turns,
because a turn commits the state it started from. Both locks are leases renewed while held, so
a killed worker frees them within ``FABULA_TURN_LOCK_TTL_MS``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

from asgiref.sync import async_to_sync
from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from engine.llm.base import ChatRequest
from engine.session import Message as EngineMessage
from engine.tokens import estimate_tokens
from play.locks import lock_backend
from play.memory import summarise_memory as summarise_memory  # the worker finds tasks here
from play.models import Message, Session
from play.prepared import Prepared
from play.providers import build_provider, provider_config
from play.save_wait import hold_for_save
from play.sessions import state_of, with_version_hash, world_of
from play.task_wait import SAVE_WAIT_SECONDS as SAVE_WAIT_SECONDS
from play.task_wait import save_wait_seconds

log = logging.getLogger(__name__)

KEEP_RECENT = 6  # messages always sent verbatim
SUMMARY_PROMPT = (
    "Summarise the story so far for the narrator who continues it: who is where, what "
    "happened, what was promised or discovered, open threads. Plain prose, at most 200 words, "
    "no directives, no commentary."
)
_SENTENCE = re.compile(r"^(.+?[.!?…。！？])(\s|$)", re.S)
COMPACT_LOCK_PREFIX = "compact:"


def compaction_budget(session: Session) -> int:
    configured = int(getattr(settings, "FABULA_COMPACTION_TOKENS", 0) or 0)
    return configured or int(world_of(session).settings.max_context * 0.6)


_LIVE_TEXTS = Prepared(
    lambda q: (
        Message.objects.filter(session_id=q.session_id, compacted=False, status="complete")
        .exclude(content="")
        .order_by("position")
        .only("position", "content")
    )
)


def compaction_due(session_id: str, session: Session | None = None) -> int | None:
    """The last position to fold when the live history passes its budget, else None."""
    session = session or with_version_hash(Session.objects.filter(pk=session_id)).first()
    if session is None:
        return None
    live = _LIVE_TEXTS(session_id=session.pk)
    if len(live) <= KEEP_RECENT:
        return None
    if sum(estimate_tokens(m.content) for m in live) <= compaction_budget(session):
        return None
    return live[-KEEP_RECENT - 1].position


def maybe_compact(session_id: str, session: Session | None = None) -> None:
    """Queue a compaction when one is due (after each turn)."""
    upto = compaction_due(session_id, session)
    if upto is not None:
        # No broker retries: this runs on the play process's database thread.
        compact_story.apply_async((session_id, upto), retry=False)


class Busy(Exception):
    """Another compaction of the session runs, or turns kept it busy; try again later."""


@shared_task(  # type: ignore[untyped-decorator]
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=8,
    name="play.compact_story",
)
def compact_story(self: Any, session_id: str, upto_position: int) -> dict[str, Any]:
    try:
        return async_to_sync(_compact)(session_id, upto_position)
    except Busy as exc:
        # Below the broker's visibility timeout, so a waiting retry is not delivered twice.
        raise self.retry(exc=exc, countdown=min(30, 2**self.request.retries)) from exc


async def _compact(session_id: str, upto_position: int) -> dict[str, Any]:
    from channels.db import database_sync_to_async

    lease = await lock_backend().acquire(COMPACT_LOCK_PREFIX + session_id)
    if lease is None:
        raise Busy(session_id)
    try:
        pending = await database_sync_to_async(_pending)(session_id, upto_position)
        if pending is None:
            return {"session": session_id, "folded": 0}
        summary = await _summarise(*pending)
        folded = await _save_between_turns(session_id, upto_position, pending[1], summary)
        return {"session": session_id, "folded": folded}
    finally:
        await lease.release()


async def _save_between_turns(session_id: str, upto: int, previous: str, summary: str) -> int:
    """Write the summary while no turn runs: a turn would commit over it the state it read."""
    from channels.db import database_sync_to_async

    deadline = time.monotonic() + save_wait_seconds()
    while True:
        lease = await hold_for_save(session_id)  # a turn sent meanwhile waits (play.save_wait)
        if lease is not None:
            try:
                folded: int | None = await database_sync_to_async(_save)(
                    session_id, upto, previous, summary
                )
            finally:
                await lease.release()
            if folded is not None:
                return folded
        if time.monotonic() >= deadline:
            raise Busy(session_id)
        await asyncio.sleep(0.5)


def _pending(session_id: str, upto: int) -> tuple[Session, str, list[Message]] | None:
    session = Session.objects.filter(pk=session_id).first()
    if session is None:
        return None
    messages = list(
        session.messages.filter(position__lte=upto, compacted=False, status="complete").exclude(
            content=""
        )
    )
    if not messages:
        return None
    return session, state_of(session).compaction_summary, messages


async def _summarise(session: Session, previous: str, messages: list[Message]) -> str:
    """A model summary in live modes; offline and replay fold the first sentence of each reply."""
    from channels.db import database_sync_to_async

    world = await database_sync_to_async(world_of)(session)
    config = await database_sync_to_async(provider_config)(
        session, world, f"task:{session.pk}", timezone.now()
    )
    if config.kind == "offline" or config.mode == "replay":
        return _extractive(previous, messages)
    transcript = "\n".join(f"{m.role}: {m.content}" for m in messages)
    request = ChatRequest(
        messages=[
            EngineMessage("system", SUMMARY_PROMPT),
            EngineMessage("user", f"Summary so far:\n{previous}\n\nNew events:\n{transcript}"),
        ],
        model=config.model,
        max_tokens=400,
    )
    text = ""
    async for chunk in build_provider(config).stream(request):
        text += chunk.text
    return text.strip() or _extractive(previous, messages)


def _extractive(previous: str, messages: list[Message]) -> str:
    lines = [previous] if previous else []
    for m in messages:
        if m.role != "assistant":
            continue
        match = _SENTENCE.match(m.content.strip())
        lines.append((match.group(1) if match else m.content.strip())[:300])
    return "\n".join(line for line in lines if line)


def _save(session_id: str, upto: int, previous: str, summary: str) -> int | None:
    """Fold the range into the summary; None while a turn claims the session (play.recovery)."""
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session_id)
        if session.turn_owner:
            return None  # Redis forgot the turn's lock; its claim in the database did not
        state = state_of(session)
        if state.compaction_summary != previous:
            return 0  # another compaction folded meanwhile; this summary missed its part
        state.compaction_summary = summary
        session.state = state.model_dump(mode="json")
        session.save(update_fields=["state", "updated_at"])
        return session.messages.filter(position__lte=upto, compacted=False).update(compacted=True)
