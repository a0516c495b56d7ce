"""Where a turn's events go: sockets in this process at once, other processes coalesced.

Each process keeps a ``Hub`` per session with its local subscribers (one queue per socket) and
the turn running here, if any. A turn is an asyncio task owned by the hub, not by a socket, so it
survives its socket closing. Frames are encoded once and put on every local queue. When the
channel layer spans processes (Redis), a ``GroupPump`` also forwards them to the session's group:
deltas are merged into at most one Redis message per ``COALESCE_INTERVAL`` (never one per token)
and only while another process has a socket on the session; other frames flush the pending
deltas and go at once, in order. With each delta batch the pump stores the text so far, so a
socket that connects to another process mid-turn starts from it and continues with the next
batch without a gap.

This module holds the in-process side (``Relay``, ``Hub``, ``Subscription``, ``RunningTurn``);
the ``GroupPump`` and the rest of the cross-process side are ``play.relay_fanout``'s, the stored
text so far ``play.partial_text``'s (all importable from here, as before).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings

from play import frames, framing
from play.frame_queue import FrameQueue, Item
from play.partial_text import PARTIAL_PREFIX as PARTIAL_PREFIX
from play.partial_text import clear_partial as clear_partial
from play.partial_text import load_partial as load_partial
from play.partial_text import store_partial as store_partial
from play.relay_fanout import COALESCE_INTERVAL as COALESCE_INTERVAL
from play.relay_fanout import MAX_MERGED_DELTA_CHARS as MAX_MERGED_DELTA_CHARS
from play.relay_fanout import PROCESS_ID as PROCESS_ID
from play.relay_fanout import GroupPump as GroupPump
from play.relay_fanout import coalesce_deltas as coalesce_deltas
from play.relay_fanout import group_name as group_name
from play.relay_fanout import group_send_now
from play.relay_fanout import mergeable as mergeable
from play.relay_fanout import remote_listeners as remote_listeners
from play.stop_listener import StopListener, stop_message
from play.stop_listener import control_group_name as control_group_name

log = logging.getLogger(__name__)

PRESENCE_INTERVAL = 1.0
FRAME_INTERVAL = 0.016  # at most one delta frame per socket per this many seconds (a 60 Hz frame)
STOP_GRACE_SECONDS = 10.0

Runner = Callable[["RunningTurn"], Awaitable[None]]
_background: set[asyncio.Future[None]] = set()


def fanout_enabled() -> bool:
    """Whether other processes may listen: any channel layer but the in-process one."""
    backend = str(settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", ""))
    return bool(backend) and not backend.endswith("InMemoryChannelLayer")


@dataclass
class RunningTurn:
    """A turn streaming in this process: its message, the clean text so far and its seq."""

    session_id: str
    message_id: int
    text: str = ""
    seq: int = 0
    task: asyncio.Task[None] | None = None
    stop_requested: bool = False  # a flag, not an Event: nothing waits on it, on_stop is called
    on_stop: list[Callable[[], None]] = field(default_factory=list)

    def snapshot(self) -> dict[str, Any]:
        return {"message_id": self.message_id, "text": self.text, "seq": self.seq}

    def request_stop(self) -> None:
        if self.stop_requested:
            return
        self.stop_requested = True
        for callback in self.on_stop:
            callback()


class Subscription:
    """One socket's view of a session: a queue of encoded frames and a seq filter."""

    def __init__(self, session_id: str, channel_name: str | None) -> None:
        self.session_id = session_id
        self.channel_name = channel_name
        self.queue: FrameQueue[Item] = FrameQueue()
        self.running: dict[str, Any] | None = None
        self._last_seq: dict[int, int] = {}
        self._quiet_until = 0.0  # loop time before which a delta waits to be merged
        # Writes a frame straight to the socket (play.socket_writer), once the history is out.
        self.writer: Callable[[str], bool] | None = None
        self._holding = False  # frames taken from the queue by the drain and not yet sent
        self._send: Callable[[str], Awaitable[None]] | None = None  # set by ``start``
        self._drain: asyncio.Task[None] | None = None  # only while frames wait

    def put(self, item: Item) -> None:
        """A frame for this socket: written at once when nothing waits ahead of it.

        Otherwise, or when the writer cannot (not daphne, the socket closing), it joins the
        queue that the drain sends from, so frames keep their order either way.
        """
        if self.writer is not None and not self._holding and not self.queue.qsize():
            frame, text = item
            if frame["type"] != "delta":
                if self.writer(text):
                    return
            else:
                now = asyncio.get_running_loop().time()
                if now >= self._quiet_until and self.writer(text):
                    self._quiet_until = now + FRAME_INTERVAL
                    return
        self.queue.put_nowait(item)
        self._drain_queued()

    def start(self, send: Callable[[str], Awaitable[None]]) -> None:
        """Send what queues up from now on (and what already has) through ``send``, in order.

        A task drains the queue and ends when it is empty; the next queued frame starts another.
        Most frames go straight to the socket (``put``), so most of a socket's life has no task
        waiting on its queue: a task and its coroutines were ~1.2 KiB of every open socket.
        """
        self._send = send
        self._drain_queued()

    async def stop(self) -> None:
        """Send nothing more; a drain under way is cancelled (the socket is going)."""
        self._send = None
        drain, self._drain = self._drain, None
        if drain is not None:
            drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await drain

    def _drain_queued(self) -> None:
        if self._send is not None and self._drain is None and self.queue.qsize():
            self._drain = asyncio.ensure_future(self._drain_queue(self._send))

    async def _drain_queue(self, send: Callable[[str], Awaitable[None]]) -> None:
        try:
            while self.queue.qsize():
                texts = await self.next_texts()
                try:
                    for text in texts:
                        await send(text)
                finally:
                    self._holding = False
        except BaseException:
            self._send = None  # the socket failed or is going: nothing more goes through it
            raise
        finally:
            if self._drain is asyncio.current_task():
                self._drain = None  # checked and cleared with no await between: a put after
                # this starts the next drain

    async def next_texts(self) -> list[str]:
        """The next frames to send, waiting for one; deltas close together are merged.

        A delta after a quiet spell goes at once; one that follows within ``FRAME_INTERVAL``
        waits out the rest of it, and everything that came meanwhile goes with it as one frame.
        A fast model (100 tokens/s) so costs a socket ~60 frames a second instead of one per
        token, and a backlog (a slow client, a busy process) shrinks instead of growing, while
        a token never waits more than the interval. Clients read ``first_seq..seq`` either way.
        """
        items = [await self.queue.get()]
        self._holding = True  # until ``forward`` has sent them: nothing may overtake them
        if items[0][0]["type"] == "delta":
            loop = asyncio.get_running_loop()
            wait = self._quiet_until - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self._quiet_until = loop.time() + FRAME_INTERVAL
        items += self.queue.take_all()
        if len(items) == 1:
            return [items[0][1]]
        out: list[tuple[dict[str, Any], str | None]] = []
        for frame, text in items:
            last = out[-1][0] if out else None
            if (
                frame["type"] == "delta"
                and last is not None
                and last["type"] == "delta"
                and mergeable(last, frame)
            ):
                merged = {**last, "text": last["text"] + frame["text"], "seq": frame["seq"]}
                out[-1] = (merged, None)
            else:
                out.append((frame, text))
        return [text if text is not None else frames.encode(frame) for frame, text in out]

    def joined_at(self, running: dict[str, Any] | None) -> None:
        """Start the seq filter where the history sent on connect leaves off."""
        self.running = running
        if running:
            self._last_seq[int(running["message_id"])] = int(running["seq"])

    def remote_frames(self, event: dict[str, Any]) -> list[str]:
        """Frames of a group message that this socket should get (its own process's: none)."""
        if event.get("origin") == PROCESS_ID:
            return []
        out = []
        for frame in event.get("frames", []):
            if frame.get("type") == "message_start":
                self._last_seq[int(frame["message"]["id"])] = 0
            elif frame.get("type") == "delta":
                message_id = int(frame["message_id"])
                if int(frame["seq"]) <= self._last_seq.get(message_id, 0):
                    continue  # already in the history or seen in-process: a duplicate
                self._last_seq[message_id] = int(frame["seq"])
            out.append(frames.encode(frame))
        return out


class Hub:
    """A session as seen by this process."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.subscribers: set[Subscription] = set()
        self.running: RunningTurn | None = None
        self.pump: GroupPump | None = GroupPump(session_id, self) if fanout_enabled() else None

    @property
    def idle(self) -> bool:
        return not self.subscribers and self.running is None

    def publish(self, frame: dict[str, Any]) -> None:
        item = framing.encoded(frame)
        frame = item[0]
        for sub in self.subscribers:
            sub.put(item)
        if self.pump is not None:
            self.pump.add(frame)


class Relay:
    """The per-process registry of hubs and running turns."""

    def __init__(self) -> None:
        self.hubs: dict[str, Hub] = {}
        self._watcher: asyncio.Task[None] | None = None
        self.stops = StopListener(self._stop_here)

    def hub(self, session_id: str) -> Hub:
        hub = self.hubs.get(session_id)
        if hub is None:
            hub = self.hubs[session_id] = Hub(session_id)
            if hub.pump is not None:
                self._ensure_watcher()
        return hub

    def _ensure_watcher(self) -> None:
        loop = asyncio.get_running_loop()
        if self._watcher is None or self._watcher.done() or self._watcher.get_loop() is not loop:
            self._watcher = loop.create_task(self._watch_presence())

    async def _watch_presence(self) -> None:
        """Once a ``PRESENCE_INTERVAL``, learn which running turns have remote listeners."""
        while True:
            await asyncio.sleep(PRESENCE_INTERVAL)
            pumps = [
                hub.pump
                for hub in list(self.hubs.values())
                if hub.pump is not None and hub.running is not None
            ]
            if not pumps:
                continue
            try:
                found = await remote_listeners([pump.group for pump in pumps])
            except Exception:
                log.warning("could not list the sessions' listeners", exc_info=True)
                found = {pump.group: True for pump in pumps}
            for pump in pumps:
                present = found.get(pump.group, True)
                if present != pump.listeners:
                    pump.listeners_changed(present)

    def _forget_if_idle(self, session_id: str) -> None:
        hub = self.hubs.get(session_id)
        if hub is not None and hub.idle:
            del self.hubs[session_id]
            if hub.pump is not None:
                hub.pump.close()

    # --- sockets -------------------------------------------------------------------------

    async def subscribe(self, session_id: str, channel_name: str | None) -> Subscription:
        """Listen to a session; ``sub.running`` is the local running turn's text so far."""
        sub = Subscription(session_id, channel_name)
        if channel_name and fanout_enabled():
            # Join the group before reading any stored text: nothing can fall in between.
            await get_channel_layer().group_add(group_name(session_id), channel_name)
        hub = self.hub(session_id)
        hub.subscribers.add(sub)
        sub.joined_at(hub.running.snapshot() if hub.running else None)
        return sub

    async def unsubscribe(self, sub: Subscription) -> None:
        hub = self.hubs.get(sub.session_id)
        if hub is not None:
            hub.subscribers.discard(sub)
            self._forget_if_idle(sub.session_id)
        if sub.channel_name and fanout_enabled():
            with contextlib.suppress(Exception):
                await get_channel_layer().group_discard(
                    group_name(sub.session_id), sub.channel_name
                )

    # --- publishing ----------------------------------------------------------------------

    def publish(self, session_id: str, frame: dict[str, Any]) -> None:
        """Send a frame to every socket of the session, here and (if any) in other processes.

        A frame too large for one websocket message goes out paged, shortened or split.
        """
        pieces = framing.fit(frame)
        hub = self.hubs.get(session_id)
        if hub is not None:
            for piece in pieces:
                hub.publish(piece)
        elif fanout_enabled():
            task = asyncio.ensure_future(group_send_now(session_id, pieces))
            _background.add(task)
            task.add_done_callback(_background.discard)

    def publish_delta(self, turn: RunningTurn, text: str) -> None:
        if not text:
            return
        turn.text += text
        turn.seq += 1
        self.publish(turn.session_id, frames.delta(turn.message_id, text, turn.seq))

    # --- turns ---------------------------------------------------------------------------

    def running(self, session_id: str) -> RunningTurn | None:
        hub = self.hubs.get(session_id)
        return hub.running if hub else None

    def start(
        self, session_id: str, message_id: int, runner: Runner, *, initial_text: str = ""
    ) -> RunningTurn:
        """Run ``runner`` as this session's turn task; the caller holds the session lock."""
        hub = self.hub(session_id)
        turn = RunningTurn(session_id, message_id, text=initial_text)
        hub.running = turn
        turn.task = asyncio.ensure_future(self._run(turn, runner))
        return turn

    async def _run(self, turn: RunningTurn, runner: Runner) -> None:
        listens = fanout_enabled()  # for a stop asked for on another process
        if listens:
            self.stops.join(turn.session_id)
        try:
            await runner(turn)
        except Exception:
            log.exception("turn of session %s crashed", turn.session_id)
        finally:
            if listens:
                self.stops.leave(turn.session_id)
            hub = self.hubs.get(turn.session_id)
            if hub is not None and hub.running is turn:
                hub.running = None
            self._forget_if_idle(turn.session_id)

    def finish(self, turn: RunningTurn) -> None:
        """Mark the turn finished (its result saved), before its last frames go out."""
        hub = self.hubs.get(turn.session_id)
        if hub is not None and hub.running is turn:
            hub.running = None

    async def request_stop(self, session_id: str) -> bool:
        """Stop the session's turn here, or ask the other processes; False if none runs here."""
        turn = self.running(session_id)
        if turn is not None:
            turn.request_stop()
            return True
        if fanout_enabled():
            await get_channel_layer().group_send(
                control_group_name(session_id), stop_message(session_id, PROCESS_ID)
            )
        return False

    def _stop_here(self, session_id: str) -> None:
        """A stop another process sent: the session's turn, if it still runs here, stops."""
        turn = self.running(session_id)
        if turn is not None:
            turn.request_stop()


relay = Relay()
