"""Stops asked for on another process: one channel per process hears them for all its turns.

A player's socket may be on one process and the session's turn on another; the socket's process
then sends ``stop`` to the session's control group (``Relay.request_stop``). Each turn used to
open its own channel, join the group with it and wait on it in a task of its own: with the Redis
layer that is a receive buffer (an ``asyncio.Queue``) and tasks per streaming turn, a per-session
cost at 500 sessions (bench/relay.py). Here a process has one channel and one receiving task; a
turn only adds that channel to its session's control group at its start and takes it out at its
end. Those changes go through one task in order, so a turn's ``discard`` can never overtake the
``add`` of the session's next turn in this process (both name the same channel).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from typing import Any

from channels.layers import get_channel_layer

from play.frame_queue import FrameQueue

log = logging.getLogger("play.relay")

RETRY_SECONDS = 1.0


def control_group_name(session_id: str) -> str:
    """Where a stop asked for on another process goes: the channel of the turn's process."""
    return f"play.ctl.{session_id}"


def stop_message(session_id: str, origin: str) -> dict[str, Any]:
    return {"type": "play.control", "action": "stop", "session": session_id, "origin": origin}


class _OnLoop:
    """The listener's channel and tasks on one event loop."""

    def __init__(self, listener: StopListener, loop: asyncio.AbstractEventLoop) -> None:
        self.channel: asyncio.Future[str] = loop.create_future()
        self.changes: FrameQueue[tuple[bool, str]] = FrameQueue()  # (join?, session id)
        self.receiving = loop.create_task(listener._receive(self))
        self.changing = loop.create_task(listener._change(self))


class StopListener:
    """Calls ``on_stop(session_id)`` for each stop another process sends to a joined session."""

    def __init__(self, on_stop: Callable[[str], None]) -> None:
        self.on_stop = on_stop
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _OnLoop] = (
            weakref.WeakKeyDictionary()
        )

    def join(self, session_id: str) -> None:
        """From now until ``leave``, stops sent to this session's group reach this process."""
        self._on_loop().changes.put_nowait((True, session_id))

    def leave(self, session_id: str) -> None:
        self._on_loop().changes.put_nowait((False, session_id))

    def _on_loop(self) -> _OnLoop:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None or state.receiving.done() or state.changing.done():
            state = self._loops[loop] = _OnLoop(self, loop)
        return state

    async def _receive(self, state: _OnLoop) -> None:
        layer = get_channel_layer()
        try:
            channel = await layer.new_channel()
        except BaseException as exc:
            state.channel.set_exception(exc)
            raise
        state.channel.set_result(channel)
        while True:
            try:
                message = await layer.receive(channel)
            except Exception:  # Redis away: the channel's name stays valid in the groups
                log.warning("could not receive stops from other processes", exc_info=True)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            session_id = message.get("session")
            if message.get("action") == "stop" and isinstance(session_id, str):
                self.on_stop(session_id)

    async def _change(self, state: _OnLoop) -> None:
        layer = get_channel_layer()
        channel = await asyncio.shield(state.channel)
        while True:
            join, session_id = await state.changes.get()
            group = control_group_name(session_id)
            try:
                if join:
                    await layer.group_add(group, channel)
                else:
                    await layer.group_discard(group, channel)
            except Exception:
                log.warning("could not %s %s", "join" if join else "leave", group, exc_info=True)
