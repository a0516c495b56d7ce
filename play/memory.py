"""The session memory on the play side (issue 13 §1; ``engine.memory`` decides and writes it).

After each turn ``maybe_summarise`` (play.turns) asks the engine whether a block is due: in a
plain world after ``FABULA_MEMORY_MESSAGES`` messages without one, in a game-master world when a
scene ended. ``end_session`` (the player's "End session") summarises whatever is left. Either
way the Celery task ``summarise_memory`` writes it: the summary, slow, runs under a lock of its
own and not under the session's lock; only the write takes the session's lock, between turns,
and appends the block to the memory as it is *then*, so a player's edit made meanwhile is kept.
The task reads what is due from the session when it runs, so a task delivered twice, or late,
writes nothing twice (``engine.memory.apply_work`` checks how far the memory reaches).

``save_memory`` is the player's (or, in a playtest, the creator's) edit: refused while a turn
claims the session, since the turn would commit over it the state it started from.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from asgiref.sync import async_to_sync
from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from engine.memory import DEFAULT_EVERY, MemoryWork, Summary, apply_work, due_work, write_work
from engine.session import Message as EngineMessage
from engine.world import WorldDefinition
from play.errors import PlayError, SessionBusy
from play.gm import character_of
from play.locks import Lease, lock_backend
from play.models import Message, Session
from play.prepared import Prepared
from play.providers import build_provider, provider_config
from play.save_wait import hold_for_save
from play.sessions import state_of, with_version_hash, world_of
from play.table_locks import with_table_lock
from play.tables import share_state
from play.task_wait import save_wait_seconds

MEMORY_LOCK_PREFIX = "memory:"
MAX_MEMORY = 20_000
BUSY_EDIT = "A reply is being written. Save the memory again once it is done."


class MemoryBusy(PlayError):
    """The player's edit came while a turn claims the session."""

    status = 409

    def __init__(self) -> None:
        super().__init__(BUSY_EDIT)


class Busy(Exception):
    """Another summary of the session runs, or turns kept it busy; try again later."""


def memory_every() -> int:
    return int(getattr(settings, "FABULA_MEMORY_MESSAGES", DEFAULT_EVERY))


# Not ``session.messages``: the related manager reads each row's deferred session_id.
_SINCE_MARK = Prepared(
    lambda q: (
        Message.objects.filter(session_id=q.session_id, status="complete", position__gt=q.mark)
        .exclude(content="")
        .order_by("position")
        .only("position", "role", "content")
    )
)


def _due(session: Session, ending: bool) -> tuple[MemoryWork | None, WorldDefinition]:
    world = world_of(session)
    state = state_of(session)
    messages = []
    if world.game_master is None:  # a game-master world's memory follows its event log
        for m in _SINCE_MARK(session_id=session.pk, mark=state.memory_mark):
            messages.append((m.position, EngineMessage(m.role, m.content)))
    character = character_of(session, world)
    work = due_work(
        world, state, messages, character_id=character, every=memory_every(), ending=ending
    )
    return work, world


def memory_due(
    session_id: str, *, ending: bool = False, session: Session | None = None
) -> MemoryWork | None:
    """The block due in the session now (``ending``: the player ends it), else None."""
    session = session or with_version_hash(Session.objects.filter(pk=session_id)).first()
    return None if session is None else _due(session, ending)[0]


def maybe_summarise(session_id: str, session: Session | None = None) -> None:
    """Queue a summary when one is due (after each turn)."""
    if memory_due(session_id, session=session) is not None:
        # No broker retries: this runs on the play process's database thread.
        summarise_memory.apply_async((session_id, False), retry=False)


def end_session(session: Session) -> Any:
    """Summarise what the memory does not cover yet (the player ends the session)."""
    return summarise_memory.apply_async((str(session.pk), True), retry=False)


@shared_task(  # type: ignore[untyped-decorator]
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=8,
    name="play.summarise_memory",
)
def summarise_memory(self: Any, session_id: str, ending: bool = False) -> dict[str, Any]:
    try:
        return async_to_sync(_summarise)(session_id, ending)
    except Busy as exc:
        raise self.retry(exc=exc, countdown=min(30, 2**self.request.retries)) from exc


async def _summarise(session_id: str, ending: bool) -> dict[str, Any]:
    from channels.db import database_sync_to_async

    lease = await lock_backend().acquire(MEMORY_LOCK_PREFIX + session_id)
    if lease is None:
        raise Busy(session_id)
    try:
        pending = await database_sync_to_async(_pending)(session_id, ending)
        if pending is None:
            return {"session": session_id, "blocks": 0}
        world, work, memory, config = pending
        provider = build_provider(config) if _model_summarises(world, config) else None
        blocks = await write_work(world, work, provider, memory=memory, model=config.model)
        written = await _save_between_turns(session_id, work, blocks, ending)
        return {"session": session_id, "blocks": written, "reason": work.reason}
    finally:
        await lease.release()


def _model_summarises(world: WorldDefinition, config: Any) -> bool:
    """Whether a model writes the summary, or the free extractive one does.

    Record and replay write the extractive one: a replayed demo must see the same memory in
    its prompts as the recorded session did, at no cost. A game-master world's scene recaps
    are extractive too: they only carry what each NPC perceived, and a move costs no call.
    """
    return config.kind != "offline" and config.mode == "live" and world.game_master is None


def _pending(session_id: str, ending: bool) -> tuple[WorldDefinition, MemoryWork, str, Any] | None:
    session = Session.objects.filter(pk=session_id).first()
    if session is None:
        return None
    work, world = _due(session, ending)
    if work is None:
        return None
    config = provider_config(session, world, f"task:{session.pk}", timezone.now())
    return world, work, state_of(session).session_memory, config


async def _save_between_turns(
    session_id: str, work: MemoryWork, blocks: list[Summary], ending: bool
) -> int:
    """Write the blocks while no turn runs: a turn would commit over them the state it read."""
    from channels.db import database_sync_to_async

    deadline = time.monotonic() + save_wait_seconds()
    while True:
        lease = await _locks(session_id)
        if lease is not None:
            try:
                written: int | None = await database_sync_to_async(_save)(session_id, work, blocks)
            finally:
                await lease.release()
            if written is not None:
                return written
        if time.monotonic() >= deadline:
            raise Busy(session_id)
        await asyncio.sleep(0.5)


async def _locks(session_id: str) -> Lease | None:
    """The session's lock, and its table's when it sits at one: NPC memories written here are
    the table's world, which another player's turn would otherwise commit over."""
    own = await hold_for_save(session_id)  # a turn sent meanwhile waits (play.save_wait)
    if own is None:
        return None
    try:
        return await with_table_lock(session_id, own)
    except SessionBusy:  # ``own`` was given back
        return None


def _save(session_id: str, work: MemoryWork, blocks: list[Summary]) -> int | None:
    """Append the blocks; None while a turn claims the session (play.recovery)."""
    with transaction.atomic():
        session = Session.objects.select_for_update().filter(pk=session_id).first()
        if session is None:
            return 0
        if session.turn_owner:
            return None
        state = state_of(session)
        if not apply_work(world_of(session), state, work, blocks):
            return 0  # another task wrote this part meanwhile
        session.state = state.model_dump(mode="json")
        session.save(update_fields=["state", "updated_at"])
        share_state(session, state)  # at a table, the others' world holds these memories too
        return len(blocks)


# --- the player's edit ---------------------------------------------------------------------------


def save_memory(session: Session, text: str) -> Session:
    """Replace the memory with the player's text; PlayError while a turn claims the session.

    The messages whose snapshot holds the memory as it was get the new text too, so that
    regenerating or swiping the last reply keeps the edit.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > MAX_MEMORY:
        raise PlayError(
            gettext("The memory holds at most %(count)d characters.") % {"count": MAX_MEMORY},
            field="memory",
        )
    with transaction.atomic():
        locked = Session.objects.select_for_update().get(pk=session.pk)
        if locked.turn_owner:
            raise MemoryBusy
        state = state_of(locked)
        old, state.session_memory = state.session_memory, text
        locked.state = state.model_dump(mode="json")
        locked.save(update_fields=["state", "updated_at"])
        _carry_edit(locked, old, text)
    return locked


def _carry_edit(session: Session, old: str, new: str) -> None:
    changed = list(session.messages.filter(state__session_memory=old).only("state", "swipes"))
    for message in changed:
        message.state = {**message.state, "session_memory": new}
        message.swipes = [_swipe_with(swipe, old, new) for swipe in message.swipes]
    if changed:
        Message.objects.bulk_update(changed, ["state", "swipes"])


def _swipe_with(swipe: Any, old: str, new: str) -> Any:
    state = swipe.get("state") if isinstance(swipe, dict) else None
    if isinstance(state, dict) and state.get("session_memory", "") == old:
        return {**swipe, "state": {**state, "session_memory": new}}
    return swipe
