"""What each client frame does: one service call, and the frames it produces.

``join`` opens a socket's view of a session (access check, recovery of a turn left streaming by
a dead process, history); ``handle`` runs one decoded frame and returns the frames meant for the
sender only. Whatever all of the session's sockets must see goes through play.relay.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from django.utils.translation import gettext

from play import (
    costs,
    demos,
    frames,
    framing,
    gm,
    history,
    messages,
    payloads,
    recovery,
    sessions,
    table_relay,
    tables,
    turns,
    ui_api,
)
from play.errors import PlayError, SessionBusy
from play.frames import (
    ActionFrame,
    BranchFrame,
    CheckpointDeleteFrame,
    CheckpointRestoreFrame,
    CheckpointSaveFrame,
    ContinueFrame,
    DeleteFrame,
    DemoStepFrame,
    EditFrame,
    Frame,
    HistoryFrame,
    InjectContextFrame,
    RegenerateFrame,
    RevertFrame,
    RollFrame,
    SendFrame,
    SetVariableFrame,
    StopFrame,
    SwipeFrame,
    SwitchGreetingFrame,
    SyncFrame,
)
from play.locks import lock_backend
from play.models import Session
from play.relay import Subscription, fanout_enabled, load_partial, relay
from play.sessions import Player, with_version_hash

log = logging.getLogger(__name__)

INTERNAL_ERROR = "Something went wrong on the server; the session is unchanged."


@dataclass
class Joined:
    session_id: str
    player: Player
    subscription: Subscription


async def join(
    session_id: str, player: Player, channel_name: str | None
) -> tuple[Joined, list[str]]:
    """Check access and subscribe; returns the connection and its encoded history frame(s).

    Raises SessionNotFound or SessionForbidden before subscribing to anything.
    """
    session = await database_sync_to_async(sessions.get_session_for_player)(player, session_id)
    sid = str(session.pk)
    sub = await relay.subscribe(sid, channel_name)
    joined = Joined(sid, player, sub)
    try:
        first = await _history(joined, None)
        scene = await database_sync_to_async(gm.join_frames)(sid, player)
    except BaseException:
        await relay.unsubscribe(sub)
        raise
    return joined, [text for frame in [first, *scene] for text in framing.texts(frame)]


async def leave(joined: Joined) -> None:
    await relay.unsubscribe(joined.subscription)
    await presence(joined.session_id, -1)


async def presence(session_id: str, delta: int) -> None:
    """At a shared table, every player's list shows who has the game open (play.tables): the
    socket counts itself once it can hear the table (+1), and on leaving (-1)."""
    try:
        told = await database_sync_to_async(tables.set_presence)(session_id, delta)
    except Exception:
        log.exception("could not count the presence of session %s", session_id)
        return
    if told is not None:
        await table_relay.send(table_relay.to_all(*told))


async def _history(joined: Joined, since: int | None) -> dict[str, Any]:
    """The history frame; marks a turn failed that no live process is running any more."""
    sid = joined.session_id
    running = relay.running(sid)
    snapshot = running.snapshot() if running else None
    # A turn of a dead process is taken over (failed) first; a live one elsewhere goes on.
    if snapshot is None and await recovery.turn_elsewhere(sid) and fanout_enabled():
        snapshot = await load_partial(sid)  # start from its text so far
    frame: dict[str, Any] = await database_sync_to_async(_history_frame)(sid, snapshot, since)
    joined.subscription.joined_at(frame["running"])
    return frame


def _session(session_id: str) -> Session:
    session = with_version_hash(Session.objects.filter(pk=session_id)).first()
    if session is None:
        raise PlayError(gettext("This session no longer exists."))
    return session


def _history_frame(session_id: str, running: Any, since: int | None) -> dict[str, Any]:
    return history.history_since(_session(session_id), running, since)


# --- frames ----------------------------------------------------------------------------------


async def handle(joined: Joined, frame: Frame) -> list[dict[str, Any]]:
    """Run one frame; errors become ``error``/``busy`` frames for the sender, never a crash."""
    echo = frame.model_dump(mode="json")
    try:
        produced = await _HANDLERS[type(frame)](joined, frame)
        return [piece for out in produced for piece in framing.fit(out)]
    except SessionBusy as exc:
        return [frames.busy(echo, exc.message_id, getattr(exc, "table_message", None))]
    except PlayError as exc:
        return [frames.error(exc.message, echo, exc.field)]
    except Exception:
        log.exception("frame %s failed in session %s", frame.type, joined.session_id)
        return [frames.error(INTERNAL_ERROR, echo)]


Handler = Callable[[Joined, Any], Awaitable[list[dict[str, Any]]]]


def _solo(handler: Handler) -> Handler:
    """A change that rewrites the story, refused at a shared table (play.tables)."""

    async def run(joined: Joined, frame: Any) -> list[dict[str, Any]]:
        await database_sync_to_async(tables.refuse_rewind)(joined.session_id)
        return await handler(joined, frame)

    return run


async def _send(joined: Joined, frame: SendFrame) -> list[dict[str, Any]]:
    await turns.start_turn(joined.session_id, joined.player, "message", frame.text)
    return []


async def _regenerate(joined: Joined, frame: RegenerateFrame) -> list[dict[str, Any]]:
    await turns.start_turn(
        joined.session_id, joined.player, "regenerate", target_id=frame.message_id
    )
    return []


async def _continue(joined: Joined, frame: ContinueFrame) -> list[dict[str, Any]]:
    await turns.start_turn(joined.session_id, joined.player, "continue")
    return []


async def _action(joined: Joined, frame: ActionFrame) -> list[dict[str, Any]]:
    await turns.start_turn(
        joined.session_id, joined.player, "action", frame.text or "", frame.action_id
    )
    return []


async def _roll(joined: Joined, frame: RollFrame) -> list[dict[str, Any]]:
    await turns.start_turn(joined.session_id, joined.player, "action", "", gm.ROLL)
    return []


async def _demo_step(joined: Joined, frame: DemoStepFrame) -> list[dict[str, Any]]:
    step = await database_sync_to_async(_with_session)(joined.session_id, demos.next_step)
    await turns.start_turn(joined.session_id, joined.player, step.kind, step.text, step.action)
    return []


async def _stop(joined: Joined, frame: StopFrame) -> list[dict[str, Any]]:
    if not await turns.stop_turn(joined.session_id):
        raise PlayError(gettext("No reply is being written right now."))
    return []


async def _locked(joined: Joined, fn: Callable[..., Any], *args: Any) -> Any:
    """Run a quick change under the session's lock, so it never races a turn."""
    lease = await lock_backend().acquire(joined.session_id)
    if lease is None:
        running = relay.running(joined.session_id)
        raise SessionBusy(running.message_id if running else None)
    try:
        await recovery.ensure_idle(joined.session_id)  # a turn Redis forgot still holds it
        return await database_sync_to_async(_with_session)(joined.session_id, fn, *args)
    finally:
        await lease.release()


def _with_session(session_id: str, fn: Callable[..., Any], *args: Any) -> Any:
    return fn(_session(session_id), *args)


def _message_and_state(session: Session, message: Any) -> list[dict[str, Any]]:
    session.refresh_from_db(fields=["state"])
    return [
        frames.message_done(payloads.message_dict(message), costs.session_usage(session.pk)),
        payloads.state_frame(session),
        *gm.session_frames(session),
    ]


def _edit_fn(session: Session, message_id: int, content: str) -> list[dict[str, Any]]:
    message = messages.edit_message(session, message_id, content)
    return [frames.message_done(payloads.message_dict(message))]


def _swipe_fn(session: Session, message_id: int, direction: str) -> list[dict[str, Any]] | None:
    message = messages.swipe_message(session, message_id, direction)
    return None if message is None else _message_and_state(session, message)


def _bulk(change: Callable[..., Any]) -> Callable[..., list[dict[str, Any]]]:
    """A change after which every socket reloads the whole history."""

    def run(session: Session, *args: Any) -> list[dict[str, Any]]:
        change(session, *args)
        session.refresh_from_db()
        return [history.history_frame(session, None) | {"since": None}, *gm.session_frames(session)]

    return run


def _checkpoints_after(change: Callable[..., Any]) -> Callable[..., list[dict[str, Any]]]:
    def run(session: Session, *args: Any) -> list[dict[str, Any]]:
        change(session, *args)
        return [frames.checkpoints(payloads.checkpoint_list(session))]

    return run


async def _broadcast(joined: Joined, produced: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for out in produced:
        relay.publish(joined.session_id, out)
    return []


async def _edit(joined: Joined, frame: EditFrame) -> list[dict[str, Any]]:
    return await _broadcast(
        joined, await _locked(joined, _edit_fn, frame.message_id, frame.content)
    )


async def _swipe(joined: Joined, frame: SwipeFrame) -> list[dict[str, Any]]:
    produced = await _locked(joined, _swipe_fn, frame.message_id, frame.direction)
    if produced is None:  # right past the last swipe: write a new one
        await turns.start_turn(
            joined.session_id, joined.player, "regenerate", target_id=frame.message_id
        )
        return []
    return await _broadcast(joined, produced)


async def _delete(joined: Joined, frame: DeleteFrame) -> list[dict[str, Any]]:
    fn = _bulk(messages.delete_message)
    return await _broadcast(joined, await _locked(joined, fn, frame.message_id))


async def _revert(joined: Joined, frame: RevertFrame) -> list[dict[str, Any]]:
    fn = _bulk(messages.revert_to_message)
    return await _broadcast(joined, await _locked(joined, fn, frame.message_id))


async def _switch_greeting(joined: Joined, frame: SwitchGreetingFrame) -> list[dict[str, Any]]:
    fn = _bulk(messages.switch_greeting)
    return await _broadcast(joined, await _locked(joined, fn, frame.index))


async def _checkpoint_save(joined: Joined, frame: CheckpointSaveFrame) -> list[dict[str, Any]]:
    fn = _checkpoints_after(messages.save_checkpoint)
    return await _broadcast(joined, await _locked(joined, fn, frame.name))


async def _checkpoint_restore(
    joined: Joined, frame: CheckpointRestoreFrame
) -> list[dict[str, Any]]:
    fn = _bulk(messages.restore_checkpoint)
    return await _broadcast(joined, await _locked(joined, fn, frame.checkpoint_id))


async def _checkpoint_delete(joined: Joined, frame: CheckpointDeleteFrame) -> list[dict[str, Any]]:
    fn = _checkpoints_after(messages.delete_checkpoint)
    return await _broadcast(joined, await _locked(joined, fn, frame.checkpoint_id))


def _branch_fn(session: Session, message_id: int) -> dict[str, Any]:
    branch = sessions.branch_from_message(session, message_id)
    return frames.branched(str(branch.pk), f"/play/{branch.pk}/")


async def _branch(joined: Joined, frame: BranchFrame) -> list[dict[str, Any]]:
    fn = database_sync_to_async(_with_session)
    return [await fn(joined.session_id, _branch_fn, frame.message_id)]


async def _sync(joined: Joined, frame: SyncFrame) -> list[dict[str, Any]]:
    fresh: dict[str, Any] = await _history(joined, frame.last_message_id)
    return [fresh]


async def _page(joined: Joined, frame: HistoryFrame) -> list[dict[str, Any]]:
    fn = database_sync_to_async(_with_session)
    return [await fn(joined.session_id, history.page_frame, frame.before, frame.limit)]


async def _set_variable(joined: Joined, frame: SetVariableFrame) -> list[dict[str, Any]]:
    fn = ui_api.set_variable
    await _broadcast(joined, await _locked(joined, fn, frame.variable, frame.value))
    return [frames.ui_done(frame.type)]


async def _inject_context(joined: Joined, frame: InjectContextFrame) -> list[dict[str, Any]]:
    args = (frame.text, frame.role, frame.position, frame.duration, frame.depth)
    await _locked(joined, ui_api.inject_context, *args)
    return [frames.ui_done(frame.type)]


_HANDLERS: dict[type[Any], Handler] = {
    SendFrame: _send,
    RegenerateFrame: _solo(_regenerate),
    SwipeFrame: _solo(_swipe),
    EditFrame: _solo(_edit),
    DeleteFrame: _solo(_delete),
    ContinueFrame: _solo(_continue),
    StopFrame: _stop,
    RevertFrame: _solo(_revert),
    BranchFrame: _solo(_branch),
    CheckpointSaveFrame: _checkpoint_save,
    CheckpointRestoreFrame: _solo(_checkpoint_restore),
    CheckpointDeleteFrame: _checkpoint_delete,
    SwitchGreetingFrame: _solo(_switch_greeting),
    ActionFrame: _action,
    RollFrame: _roll,
    DemoStepFrame: _demo_step,
    SyncFrame: _sync,
    HistoryFrame: _page,
    SetVariableFrame: _set_variable,
    InjectContextFrame: _inject_context,
}
