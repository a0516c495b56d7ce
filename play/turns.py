"""Running turns: the session's lock, the turn task, and what it streams (architecture "The turn").

``start_turn`` takes the session's lock, lets play.replies write the player's message and a
``streaming`` placeholder, and hands the rest to a task in play.relay that outlives any socket.
The task streams ``engine.turn.Turn``'s deltas to the relay and, at the end, commits the reply,
the new state, the usage and the recording in one transaction (play.replies.commit_turn), then
publishes ``message_done``, ``state``, notifications, audio and choices. A failed turn saves the
reply as failed with its error and applies no state change. A stopped turn keeps what was
streamed; its directives are applied only with ``apply_on_stop``.

Every turn ends with an end frame for every socket (``message_done`` or ``message_failed``), even
when the database is down at its end: the failure is announced at once and written as soon as the
database answers again. A turn whose session was taken over (play.recovery) writes nothing and
says nothing: whoever took it over already told every socket.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from typing import Any

from channels.db import database_sync_to_async

from engine.llm.base import Provider
from engine.turn import (
    AudioEvent,
    ChoicesEvent,
    Delta,
    Done,
    NotificationEvent,
    Turn,
    TurnFailed,
    TurnResult,
)
from play import demos, frames, gm, gm_steps, quota, save_wait, table_relay, tables
from play.costs import session_usage_or_none
from play.errors import SessionBusy
from play.locks import Lease, lock_backend
from play.memory import maybe_summarise
from play.models import Message, Session
from play.payloads import message_dict, state_frame, turn_state_frame
from play.providers import build_provider, recording_after
from play.recovery import TurnFenced, owner_of, recover, supervisor
from play.relay import RunningTurn, relay
from play.replies import TurnPlan, add_reply_placeholder, commit_turn, fail_turn, prepare_turn
from play.sessions import Player, with_version_hash
from play.slack import slack
from play.table_locks import TableBusy, hold_table
from play.tasks import maybe_compact

log = logging.getLogger(__name__)

GENERIC_ERROR = "Something went wrong while writing this reply. Regenerate to try again."
CANCELLED_ERROR = "The server stopped while writing this reply. Regenerate to try again."
SAVE_ERROR = "This reply could not be saved. Regenerate to try again."
SETTLE_SECONDS = 600.0  # how long a failure waits for the database before giving up on it
_settling: set[asyncio.Future[None]] = set()
MAX_FOLLOW_UPS = 2  # generations a rule may request (@ai.request) after one action


# --- running (async) -------------------------------------------------------------------------


async def start_turn(
    session_id: str,
    player: Player,
    kind: str,
    text: str = "",
    action_id: str | None = None,
    target_id: int | None = None,
) -> RunningTurn:
    """Take the lock, prepare and launch the turn task; raises SessionBusy or PlayError."""
    lease, plan = await _lock_and_prepare(session_id, player, kind, text, action_id, target_id)
    plan.language = gm.page_language(plan.world)  # the socket's, active around its frames
    if plan.user_message is not None:
        relay.publish(session_id, frames.message_done(plan.user_message))
    if plan.config.quota_exhausted:
        notice = plan.config.notice or str(quota.NOTICE)
        relay.publish(session_id, frames.notification(notice, "quota"))
    running = relay.start(
        session_id,
        plan.message_id or 0,
        lambda turn: run_turn(plan, lease, turn),
        initial_text=plan.base_content,
    )
    if plan.reply is not None:
        relay.publish(session_id, frames.message_start(plan.reply, continuing=kind == "continue"))
    supervisor.ensure()  # renews the claim's heartbeat while the turn runs
    return running


async def _lock_and_prepare(session_id: str, player: Player, *args: Any) -> tuple[Lease, TurnPlan]:
    """Lock and claim the session; an orphaned turn in the way is taken over, then tried again."""
    for attempt in range(2):
        own = await save_wait.acquire_turn_lock(session_id)  # a background save is waited for
        if own is not None:
            prepared = await _prepare_holding(own, session_id, player, args)
            if prepared is not None:
                return prepared
        running = relay.running(session_id)
        if running is not None or attempt or not await recover(session_id):
            raise SessionBusy(running.message_id if running else None)
    raise AssertionError("unreachable")


async def _prepare_holding(
    own: Lease, session_id: str, player: Player, args: tuple[Any, ...]
) -> tuple[Lease, TurnPlan] | None:
    """Prepare the turn under ``own``, and under the table's lock too when the session is
    seated; None when the database still holds another turn's claim (Redis forgot the lock).

    A session at no table (most) learns its lock key and is prepared in one trip to the
    database thread, which every turn start waits on.
    """
    lease = own
    try:
        await slack()
        key, plan = await database_sync_to_async(_prepare_unless_seated)(
            session_id, player, args, owner_of(own.token)
        )
        if plan is None:  # the table's turns take turns: its lock first, then prepare
            lease = await hold_table(key, own)  # TableBusy: another player's turn
            plan = await database_sync_to_async(prepare_turn)(
                session_id, player, *args, owner=owner_of(lease.token)
            )
        return lease, plan
    except TableBusy:
        await lease.release()
        raise
    except SessionBusy:
        await lease.release()
        return None
    except BaseException:
        await lease.release()
        raise


def _prepare_unless_seated(
    session_id: str, player: Player, args: tuple[Any, ...], owner: str
) -> tuple[str, TurnPlan | None]:
    """The session's lock key, and its prepared turn when that key is its own (no table)."""
    key = tables.lock_key(session_id)
    if key != session_id:
        return key, None
    return key, prepare_turn(session_id, player, *args, owner=owner)


async def run_turn(plan: TurnPlan, lease: Lease, running: RunningTurn) -> None:
    """The turn task: stream, commit, publish; chained when a rule asks the narrator again.

    The lock is released before the last frames go out, so a client that answers
    ``message_done`` at once is never told "busy".
    """
    final: list[dict[str, Any]] = []
    saved: Session | None = None
    try:
        follow_ups = 0
        current: TurnPlan | None = plan
        while current is not None:
            result, final = await _stream_and_save(current, running)
            saved, current = current.saved_session or saved, None
            if result is not None and result.requests_ai and follow_ups < MAX_FOLLOW_UPS:
                follow_ups += 1
                _publish(plan.session_id, final)
                final = []
                current = await database_sync_to_async(_follow_up)(plan)
                running.message_id, running.text, running.seq = current.message_id or 0, "", 0
                relay.publish(plan.session_id, frames.message_start(current.reply or {}))
    finally:
        relay.finish(running)
        await lease.release()
        if plan.config.mode == "replay":  # a demo's bar learns how far it got, even on failure
            final = [*final, await database_sync_to_async(demos.progress_frame)(plan.session_id)]
        _publish(plan.session_id, final)
    await slack()
    await database_sync_to_async(_queue_background_work)(plan.session_id, saved)


def _queue_background_work(session_id: str, saved: Session | None = None) -> None:
    """After the turn, in one trip to the database thread: a compaction or a summary if due;
    ``saved``: the session row as the turn's commit left it (not read again)."""
    try:
        session = saved or with_version_hash(Session.objects.filter(pk=session_id)).first()
    except Exception:
        log.exception("could not read session %s after its turn", session_id)
        return
    if session is None:
        return
    try:
        maybe_compact(session_id, session)
    except Exception:
        log.exception("could not queue the compaction of session %s", session_id)
    try:
        maybe_summarise(session_id, session)
    except Exception:
        log.exception("could not queue the memory summary of session %s", session_id)


def _publish(session_id: str, outgoing: list[dict[str, Any]]) -> None:
    for frame in outgoing:
        relay.publish(session_id, frame)


def _follow_up(plan: TurnPlan) -> TurnPlan:
    follow = prepare_turn(plan.session_id, plan.player, "action", "", None, None, owner=plan.owner)
    follow.language = plan.language
    return follow


async def _stream_and_save(
    plan: TurnPlan, running: RunningTurn
) -> tuple[TurnResult | None, list[dict[str, Any]]]:
    """Stream one generation and commit it; returns the result and the frames still to send."""
    turn = _make_turn(plan)
    gm_steps.listen(turn, plan.session_id, running, plan.config.capabilities)  # issue 37 §1
    running.on_stop.append(turn.stop)
    if running.stop_requested:
        turn.stop()
    started = time.monotonic()
    pending: list[dict[str, Any]] = []
    result: TurnResult | None = None
    try:
        async for event in gm.turn_events(turn, plan.session_id):
            if isinstance(event, Delta):
                text = event.text
                if plan.kind == "continue" and running.seq == 0:
                    plan.joiner = continue_joiner(plan.base_content, text)
                    text = plan.joiner + text
                if plan.message_id is None:
                    await database_sync_to_async(add_reply_placeholder)(plan)
                    running.message_id = plan.message_id or 0
                    relay.publish(plan.session_id, frames.message_start(plan.reply or {}))
                relay.publish_delta(running, text)
            elif isinstance(event, Done):
                result = event.result
            else:
                pending.extend(_event_frames(event))
    except TurnFailed as exc:  # the player reads ``message``; the cause is the operator's
        log.warning("turn of session %s failed: %s (%s)", plan.session_id, exc.message, exc.detail)
        return None, await _failure(plan, exc.message)
    except asyncio.CancelledError:
        _publish(plan.session_id, await asyncio.shield(_failure(plan, CANCELLED_ERROR)))
        raise
    except Exception:
        log.exception("turn of session %s failed", plan.session_id)
        return None, await _failure(plan, GENERIC_ERROR)
    finally:
        running.on_stop.remove(turn.stop)
    assert result is not None
    elapsed = int((time.monotonic() - started) * 1000)
    recording = recording_after(turn.provider)
    try:
        await slack()
        saved, totals = await database_sync_to_async(_commit)(plan, result, elapsed, recording)
    except TurnFenced:
        log.warning("turn of session %s was taken over; its reply is dropped", plan.session_id)
        return None, []
    except Exception:
        log.exception("could not save the turn of session %s", plan.session_id)
        return None, await _failure(plan, SAVE_ERROR)
    if plan.deliveries:  # what the others at the table perceived of it (play.tables)
        await table_relay.send(plan.deliveries)
    changes = [c.to_dict() for c in result.changes]
    state = result.state
    outgoing = []
    if saved is not None:  # with the session's running total (play.costs)
        outgoing.append(frames.message_done(saved, totals))
    outgoing.append(turn_state_frame(state, changes, plan.character_id))
    return result, outgoing + pending + gm.turn_frames(plan.world, result, plan.character_id)


def _commit(
    plan: TurnPlan, result: TurnResult, elapsed_ms: int, recording: Any
) -> tuple[Any, dict[str, Any] | None]:
    """The commit and the session's new running total, in one trip to the database thread."""
    saved = commit_turn(plan, result, elapsed_ms, recording)
    return saved, session_usage_or_none(plan.session_id) if saved is not None else None


def continue_joiner(base: str, new: str) -> str:
    """The space a continuation needs: the engine trims the reply's leading whitespace."""
    if not base or not new or base[-1].isspace() or new[0].isspace():
        return ""
    if not (new[0].isalnum() or new[0] in "\"'“‘(*_—-") or not new[0].isascii():
        return ""
    return " " if base[-1].isascii() else ""


def _make_turn(plan: TurnPlan) -> Turn:
    provider: Provider = build_provider(plan.config)
    seed = f"{plan.dice_seed}:{plan.position}:{plan.swipe_index}:{plan.kind}"
    if plan.state.gm is not None:  # the master's dice roll from this turn's seed (play.dice)
        plan.state.gm.dice.seed = plan.dice_seed
    now = plan.now
    return Turn(
        plan.world,
        plan.state,
        plan.history,
        plan.action,
        provider,
        persona=plan.persona,
        clock=lambda: now,
        rng=functools.partial(random.Random, seed),  # made when the prompt rolls dice
        model=plan.model,
        apply_on_stop=plan.apply_on_stop,
        seed=plan.dice_seed,
        idle_seconds=plan.idle_seconds,
        character_id=plan.character_id,
        language=plan.language,
    )


def _event_frames(event: Any) -> list[dict[str, Any]]:
    if isinstance(event, NotificationEvent):
        return [frames.notification(event.notification.message, event.notification.style)]
    if isinstance(event, AudioEvent):
        cue = event.cue
        return [
            frames.audio(
                str(getattr(cue, "track_id", "")),
                str(getattr(cue, "action", "play")),
                getattr(cue, "value", None),
                getattr(cue, "chain", None),
            )
        ]
    if isinstance(event, ChoicesEvent):
        return [frames.choices(list(event.choices))]
    return []  # a state change too: the state frame after the commit carries them all at once


async def _failure(plan: TurnPlan, error: str) -> list[dict[str, Any]]:
    """The end frames of a failed turn; announced even when the failure cannot be saved yet."""
    try:
        saved = await database_sync_to_async(fail_turn)(plan, error)
    except TurnFenced:
        return []
    except Exception:
        log.exception("could not mark the turn of session %s failed", plan.session_id)
        task = asyncio.ensure_future(_settle(plan, error))
        _settling.add(task)
        task.add_done_callback(_settling.discard)
        saved = _failed_copy(plan, error)
    if saved is not None and plan.message_id is not None:
        return [frames.message_failed(plan.message_id, error, saved)]
    return [frames.error(error, {"type": plan.action.kind})]


def _failed_copy(plan: TurnPlan, error: str) -> dict[str, Any] | None:
    """The reply as it will be saved once the database answers: failed, with what it had."""
    if plan.reply is None:
        return None
    content = plan.base_content if plan.kind == "continue" else ""
    return {**plan.reply, "status": "failed", "error": error, "content": content}


async def _settle(plan: TurnPlan, error: str) -> None:
    """Write a failure the database refused, once it answers again; then tell every socket."""
    delay, deadline = 0.0, time.monotonic() + SETTLE_SECONDS
    while True:
        delay = _settle_delay(delay)
        await asyncio.sleep(delay)
        try:
            saved = await database_sync_to_async(fail_turn)(plan, error)
        except TurnFenced:  # its commit went through after all, or it was taken over
            _publish(plan.session_id, await database_sync_to_async(_as_saved)(plan))
            return
        except Exception:
            if time.monotonic() > deadline:
                log.error("gave up marking the turn of session %s failed", plan.session_id)
                return
            continue
        if saved is not None and plan.message_id is not None:
            relay.publish(plan.session_id, frames.message_failed(plan.message_id, error, saved))
        return


def _settle_delay(previous: float) -> float:
    """Half a second, doubling up to five: quick after a blip, gentle during an outage."""
    return min(5.0, max(0.5, previous * 2))


def _as_saved(plan: TurnPlan) -> list[dict[str, Any]]:
    """The reply and state as the database has them, when a commit turned out to have landed."""
    if plan.message_id is None:
        return []
    reply = Message.objects.filter(pk=plan.message_id).select_related("session").first()
    if reply is None or reply.status != "complete":
        return []
    return [frames.message_done(message_dict(reply)), state_frame(reply.session)]


async def stop_turn(session_id: str) -> bool:
    """Stop the session's running turn, wherever it runs; False when none is running."""
    if await relay.request_stop(session_id):
        return True
    return await lock_backend().is_held(session_id)
