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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings

from play import frames, framing
from play.locks import lock_backend, lock_ttl_ms

log = logging.getLogger(__name__)

PROCESS_ID = secrets.token_hex(8)
COALESCE_INTERVAL = 0.1
PRESENCE_INTERVAL = 1.0
PARTIAL_PREFIX = "fabula:play:partial:"
STOP_GRACE_SECONDS = 10.0
# Deltas merged into one frame carry at most this many characters (6 bytes each once escaped,
# at worst), so a merged backlog stays within framing.LIMIT.
MAX_MERGED_DELTA_CHARS = 32_000

Runner = Callable[["RunningTurn"], Awaitable[None]]
_background: set[asyncio.Future[None]] = set()


def group_name(session_id: str) -> str:
    return f"play.{session_id}"


def control_group_name(session_id: str) -> str:
    """Where a stop asked for on another process goes: only the turn's own listener is in it."""
    return f"play.ctl.{session_id}"


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
    stop_requested: asyncio.Event = field(default_factory=asyncio.Event)
    on_stop: list[Callable[[], None]] = field(default_factory=list)

    def snapshot(self) -> dict[str, Any]:
        return {"message_id": self.message_id, "text": self.text, "seq": self.seq}

    def request_stop(self) -> None:
        if self.stop_requested.is_set():
            return
        self.stop_requested.set()
        for callback in self.on_stop:
            callback()


class Subscription:
    """One socket's view of a session: a queue of encoded frames and a seq filter."""

    def __init__(self, session_id: str, channel_name: str | None) -> None:
        self.session_id = session_id
        self.channel_name = channel_name
        self.queue: asyncio.Queue[tuple[dict[str, Any], str]] = asyncio.Queue()
        self.running: dict[str, Any] | None = None
        self._last_seq: dict[int, int] = {}

    async def next_texts(self) -> list[str]:
        """The next frames to send, waiting for one; a backlog of deltas is merged.

        When the socket keeps up this is one frame per token. When frames pile up (a slow
        client, a busy process) consecutive deltas of one message go out as one frame, so a
        backlog shrinks instead of growing; clients read ``first_seq..seq`` either way.
        """
        items = [await self.queue.get()]
        while not self.queue.empty():
            items.append(self.queue.get_nowait())
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


class GroupPump:
    """Forwards one session's frames to its channel-layer group, deltas coalesced.

    Deltas wait in ``pending`` and go out as one merged batch per ``COALESCE_INTERVAL``, but only
    while a socket of another process is in the group (the relay checks every
    ``PRESENCE_INTERVAL``, for all sessions in one round trip); otherwise they keep waiting, so a
    listener that joins later gets everything it missed in its first batch. Any other frame
    flushes the pending deltas and goes at once, so order is kept and every process sees each
    turn end. The text so far is stored with each batch sent, so it always ends exactly where
    the next batch starts.
    """

    def __init__(self, session_id: str, hub: Hub) -> None:
        self.session_id = session_id
        self.group = group_name(session_id)
        self.hub = hub
        self.pending: list[dict[str, Any]] = []
        self.outbox: asyncio.Queue[tuple[list[dict[str, Any]], dict[str, Any] | None] | None] = (
            asyncio.Queue()
        )
        self.timer: asyncio.TimerHandle | None = None
        self.sent_messages = 0
        self.listeners = False  # kept up to date by Relay._watch_presence
        self.task = asyncio.ensure_future(self._run())

    def add(self, frame: dict[str, Any]) -> None:
        if frame["type"] == "delta":
            self.pending.append(frame)
            if self.listeners:
                self._arm()
            return
        self.outbox.put_nowait(self._take(frame))

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.pending:
            self.outbox.put_nowait(self._take(None))
        self.outbox.put_nowait(None)

    def _arm(self) -> None:
        if self.timer is None:
            self.timer = asyncio.get_running_loop().call_later(COALESCE_INTERVAL, self._due)

    def _due(self) -> None:
        self.timer = None
        if self.pending:
            self.outbox.put_nowait(([], None))  # a tick: send the deltas if anyone listens

    def _take(
        self, frame: dict[str, Any] | None
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        batch = coalesce_deltas(self.pending)
        self.pending = []
        running = self.hub.running
        # Taken with the batch, so the stored text ends exactly where this batch ends.
        partial = running.snapshot() if batch and running else None
        return [*batch, frame] if frame is not None else batch, partial

    def listeners_changed(self, present: bool) -> None:
        """The relay found (or lost) sockets of other processes on this session."""
        self.listeners = present
        if present and self.pending:
            self.outbox.put_nowait(([], None))

    async def _run(self) -> None:
        layer = get_channel_layer()
        while True:
            item = await self.outbox.get()
            if item is None:
                return
            batch, partial = item
            if not batch:  # a tick
                if not self.pending:
                    continue
                if not self.listeners:
                    continue  # kept pending; listeners_changed() sends them when one joins
                batch, partial = self._take(None)
            try:
                if partial is not None:
                    await store_partial(self.session_id, partial)
                if any(f["type"] in ("message_done", "message_failed") for f in batch):
                    await clear_partial(self.session_id)
                await layer.group_send(
                    self.group, {"type": "play.relay", "origin": PROCESS_ID, "frames": batch}
                )
                self.sent_messages += 1
            except Exception:
                log.exception("could not forward frames of session %s", self.session_id)


async def remote_listeners(groups: list[str]) -> dict[str, bool]:
    """For each group, whether a channel of another process is in it (channels_redis layers).

    Channel names of one process share the layer's ``client_prefix``. One pipelined round trip
    per Redis shard; any other kind of layer is assumed to have remote listeners everywhere.
    """
    layer = get_channel_layer()
    group_key = getattr(layer, "_group_key", None)
    prefix = getattr(layer, "client_prefix", None)
    if group_key is None or prefix is None:
        return dict.fromkeys(groups, True)
    own = f"specific.{prefix}!".encode()
    by_shard: dict[int, list[str]] = {}
    for group in groups:
        by_shard.setdefault(layer.consistent_hash(group), []).append(group)
    found: dict[str, bool] = {}
    for index, shard_groups in by_shard.items():
        pipe = layer.connection(index).pipeline(transaction=False)
        for group in shard_groups:
            pipe.zrange(group_key(group), 0, -1)
        for group, members in zip(shard_groups, await pipe.execute(), strict=True):
            found[group] = any(not bytes(m).startswith(own) for m in members)
    return found


def coalesce_deltas(deltas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge runs of consecutive deltas of one message into single frames."""
    out: list[dict[str, Any]] = []
    for d in deltas:
        last = out[-1] if out else None
        if last and mergeable(last, d):
            last["text"] += d["text"]
            last["seq"] = d["seq"]
        else:
            out.append(dict(d))
    return out


def mergeable(last: dict[str, Any], delta: dict[str, Any]) -> bool:
    """Whether ``delta`` continues ``last`` and both fit in one frame."""
    return (
        last["message_id"] == delta["message_id"]
        and last["seq"] + 1 == delta["first_seq"]
        and len(last["text"]) + len(delta["text"]) <= MAX_MERGED_DELTA_CHARS
    )


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
            sub.queue.put_nowait(item)
        if self.pump is not None:
            self.pump.add(frame)


class Relay:
    """The per-process registry of hubs and running turns."""

    def __init__(self) -> None:
        self.hubs: dict[str, Hub] = {}
        self._watcher: asyncio.Task[None] | None = None

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
            task = asyncio.ensure_future(_group_send_now(session_id, pieces))
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
        listener = asyncio.ensure_future(_listen_for_stop(turn)) if fanout_enabled() else None
        try:
            await runner(turn)
        except Exception:
            log.exception("turn of session %s crashed", turn.session_id)
        finally:
            if listener is not None:
                listener.cancel()
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
                control_group_name(session_id),
                {"type": "play.control", "action": "stop", "origin": PROCESS_ID},
            )
        return False


async def _group_send_now(session_id: str, batch: list[dict[str, Any]]) -> None:
    try:
        await get_channel_layer().group_send(
            group_name(session_id), {"type": "play.relay", "origin": PROCESS_ID, "frames": batch}
        )
    except Exception:
        log.exception("could not forward frames of session %s", session_id)


async def _listen_for_stop(turn: RunningTurn) -> None:
    """Take a stop asked for on another process (its socket is there, the turn is here)."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = control_group_name(turn.session_id)
    await layer.group_add(group, channel)
    try:
        while True:
            message = await layer.receive(channel)
            if message.get("type") == "play.control" and message.get("action") == "stop":
                turn.request_stop()
    finally:
        with contextlib.suppress(Exception):
            await asyncio.shield(layer.group_discard(group, channel))


# --- the text so far, for sockets that join on another process ---------------------------------


def _redis() -> Any:
    backend = lock_backend()
    return backend.client() if hasattr(backend, "client") else None


async def store_partial(session_id: str, partial: dict[str, Any]) -> None:
    client = _redis()
    if client is not None:
        await client.set(PARTIAL_PREFIX + session_id, json.dumps(partial), px=2 * lock_ttl_ms())


async def clear_partial(session_id: str) -> None:
    client = _redis()
    if client is not None:
        await client.delete(PARTIAL_PREFIX + session_id)


async def load_partial(session_id: str) -> dict[str, Any] | None:
    """The text so far of a turn running in another process, as its last batch left it."""
    client = _redis()
    if client is None:
        return None
    raw = await client.get(PARTIAL_PREFIX + session_id)
    if not raw:
        return None
    data: dict[str, Any] = json.loads(raw)
    return data


relay = Relay()
