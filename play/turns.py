"""Running turns: the session's lock, the turn task, and what it streams (architecture "The turn").

``start_turn`` takes the session's lock, lets play.replies write the player's message and a
``streaming`` placeholder, and hands the rest to a task in play.relay that outlives any socket.
The task streams ``engine.turn.Turn``'s deltas to the relay and, at the end, commits the reply,
the new state, the usage and the recording in one transaction (play.replies.commit_turn), then
publishes ``message_done``, ``state``, notifications, audio and choices. A failed turn saves the
reply as failed with its error and applies no state change. A stopped turn keeps what was
streamed; its directives are applied only with ``apply_on_stop``.
"""

from __future__ import annotations

import asyncio
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
    StateChanged,
    Turn,
    TurnFailed,
    TurnResult,
)
from play import frames
from play.errors import SessionBusy
from play.locks import Lease, lock_backend
from play.providers import build_provider, recording_after
from play.relay import RunningTurn, relay
from play.replies import TurnPlan, add_reply_placeholder, commit_turn, fail_turn, prepare_turn
from play.sessions import Player
from play.tasks import maybe_compact

log = logging.getLogger(__name__)

GENERIC_ERROR = "Something went wrong while writing this reply. Regenerate to try again."
CANCELLED_ERROR = "The server stopped while writing this reply. Regenerate to try again."
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
    lease = await lock_backend().acquire(session_id)
    if lease is None:
        running = relay.running(session_id)
        raise SessionBusy(running.message_id if running else None)
    try:
        plan = await database_sync_to_async(prepare_turn)(
            session_id, player, kind, text, action_id, target_id
        )
    except BaseException:
        await lease.release()
        raise
    if plan.user_message is not None:
        relay.publish(session_id, frames.message_done(plan.user_message))
    running = relay.start(
        session_id,
        plan.message_id or 0,
        lambda turn: run_turn(plan, lease, turn),
        initial_text=plan.base_content,
    )
    if plan.reply is not None:
        relay.publish(session_id, frames.message_start(plan.reply, continuing=kind == "continue"))
    return running


async def run_turn(plan: TurnPlan, lease: Lease, running: RunningTurn) -> None:
    """The turn task: stream, commit, publish; chained when a rule asks the narrator again.

    The lock is released before the last frames go out, so a client that answers
    ``message_done`` at once is never told "busy".
    """
    final: list[dict[str, Any]] = []
    try:
        follow_ups = 0
        current: TurnPlan | None = plan
        while current is not None:
            result, final = await _stream_and_save(current, running)
            current = None
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
        _publish(plan.session_id, final)
    try:
        await database_sync_to_async(maybe_compact)(plan.session_id)
    except Exception:
        log.exception("could not queue the compaction of session %s", plan.session_id)


def _publish(session_id: str, outgoing: list[dict[str, Any]]) -> None:
    for frame in outgoing:
        relay.publish(session_id, frame)


def _follow_up(plan: TurnPlan) -> TurnPlan:
    return prepare_turn(plan.session_id, plan.player, "action", "", None, None)


async def _stream_and_save(
    plan: TurnPlan, running: RunningTurn
) -> tuple[TurnResult | None, list[dict[str, Any]]]:
    """Stream one generation and commit it; returns the result and the frames still to send."""
    turn = _make_turn(plan)
    running.on_stop.append(turn.stop)
    if running.stop_requested.is_set():
        turn.stop()
    started = time.monotonic()
    pending: list[dict[str, Any]] = []
    result: TurnResult | None = None
    try:
        async for event in turn.events():
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
    except TurnFailed as exc:
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
        saved = await database_sync_to_async(commit_turn)(plan, result, elapsed, recording)
    except Exception:
        log.exception("could not save the turn of session %s", plan.session_id)
        return None, await _failure(plan, GENERIC_ERROR)
    changes = [c.to_dict() for c in result.changes]
    state = result.state
    outgoing = [frames.message_done(saved)] if saved is not None else []
    outgoing.append(frames.state(state.values, state.turn, changes, audio=dict(state.audio)))
    return result, outgoing + pending


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
    now = plan.now
    return Turn(
        plan.world,
        plan.state,
        plan.history,
        plan.action,
        provider,
        persona=plan.persona,
        clock=lambda: now,
        rng=random.Random(seed),
        model=plan.model,
        apply_on_stop=plan.apply_on_stop,
        seed=plan.dice_seed,
        idle_seconds=plan.idle_seconds,
    )


def _event_frames(event: Any) -> list[dict[str, Any]]:
    if isinstance(event, NotificationEvent):
        n = event.notification
        return [frames.notification(n.message, n.style)]
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
    if isinstance(event, StateChanged):
        return []  # the state frame after the commit carries every change at once
    return []


async def _failure(plan: TurnPlan, error: str) -> list[dict[str, Any]]:
    saved = await database_sync_to_async(fail_turn)(plan, error)
    if saved is not None and plan.message_id is not None:
        return [frames.message_failed(plan.message_id, error, saved)]
    return [frames.error(error, {"type": plan.action.kind})]


async def stop_turn(session_id: str) -> bool:
    """Stop the session's running turn, wherever it runs; False when none is running."""
    if await relay.request_stop(session_id):
        return True
    return await lock_backend().is_held(session_id)
