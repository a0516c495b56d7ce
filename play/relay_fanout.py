"""The cross-process part of the relay: the session's channel-layer group, the ``GroupPump``
that forwards frames to it with deltas coalesced, and who listens in other processes.

Only used when the channel layer spans processes (Redis); apart from ``play.relay``'s in-process
hubs so each side can be read, and changed, without the other.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Any, Protocol

from channels.exceptions import ChannelFull
from channels.layers import get_channel_layer

from play import frames
from play.frame_queue import FrameQueue
from play.partial_text import clear_partial, store_partial

# The relay's logger, as before the split, so log settings that name it keep working.
log = logging.getLogger("play.relay")

PROCESS_ID = secrets.token_hex(8)
COALESCE_INTERVAL = 0.1
# Deltas merged into one frame carry at most this many characters (6 bytes each once escaped,
# at worst), so a merged backlog stays within framing.LIMIT.
MAX_MERGED_DELTA_CHARS = 32_000


class Running(Protocol):
    """What the pump reads of a `play.relay.RunningTurn` (a protocol, so play.relay alone
    imports this module and not the reverse)."""

    @property
    def message_id(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def seq(self) -> int: ...
    def snapshot(self) -> dict[str, Any]: ...


class HubView(Protocol):
    """What the pump reads of its `play.relay.Hub`: the turn running in this process, if any."""

    @property
    def running(self) -> Running | None: ...


def group_name(session_id: str) -> str:
    return f"play.{session_id}"


class _Span:
    """Deltas of one message waiting in the pump, kept as a span of the running turn's text.

    The turn's text so far (``RunningTurn.text``) already holds every delta; merging them into
    a frame of their own kept the reply twice in every streaming session of a process, for
    nothing when no other process listens (the usual case). The span holds the turn's latest
    string, the same object, and where its deltas start in it: the text exists once, and the
    frame is cut from it only when it goes. A string is never changed, so the span stays right
    even if the turn's text is replaced.
    """

    __slots__ = ("first_seq", "message_id", "seq", "start", "text")

    def __init__(self, message_id: int, seq: int, text: str, start: int) -> None:
        self.message_id, self.first_seq, self.seq = message_id, seq, seq
        self.text, self.start = text, start

    def frame(self) -> dict[str, Any]:
        return frames.delta(self.message_id, self.text[self.start :], self.seq, self.first_seq)


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

    def __init__(self, session_id: str, hub: HubView) -> None:
        self.session_id = session_id
        self.group = group_name(session_id)
        self.hub = hub
        self.pending: list[dict[str, Any] | _Span] = []
        self.outbox: FrameQueue[tuple[list[dict[str, Any]], dict[str, Any] | None] | None] = (
            FrameQueue()
        )
        self.timer: asyncio.TimerHandle | None = None
        self.sent_messages = 0
        self.partial_stored = False  # so a turn that nobody elsewhere watched clears nothing
        self.listeners = False  # kept up to date by Relay._watch_presence
        self.task = asyncio.ensure_future(self._run())

    def add(self, frame: dict[str, Any]) -> None:
        if frame["type"] == "delta":
            # Merged as they come, not when they go. With no listener elsewhere (the usual
            # case) deltas wait until the turn ends: kept one by one, a 200-token reply held
            # 200 frames, ~200 bytes each per streaming session (bench/relay.py); merged, they
            # are one span of the turn's text (``_Span``).
            if not self._extend_span(frame):  # not the running turn's text: a copy
                merge_delta(self.pending, frame)
            if self.listeners:
                self._arm()
            return
        self.outbox.put_nowait(self._take(frame))

    def _extend_span(self, delta: dict[str, Any]) -> bool:
        """Take ``delta`` as the running turn's latest text; False if it is not that text."""
        running = self.hub.running
        if (
            running is None
            or running.message_id != delta["message_id"]
            or not running.seq == delta["seq"] == delta["first_seq"]
        ):
            return False
        text, added = running.text, delta["text"]
        if not text.endswith(added):
            return False
        last = self.pending[-1] if self.pending else None
        if (
            isinstance(last, _Span)
            and last.message_id == delta["message_id"]
            and last.seq + 1 == delta["seq"]
            and len(last.text) == len(text) - len(added)  # this string continues that one
            and len(text) - last.start <= MAX_MERGED_DELTA_CHARS
        ):
            last.text, last.seq = text, delta["seq"]
        else:
            self.pending.append(
                _Span(delta["message_id"], delta["seq"], text, len(text) - len(added))
            )
        return True

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
        batch = [p.frame() if isinstance(p, _Span) else p for p in self.pending]
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
            items = [await self.outbox.get()]
            while items[-1] is not None and not self.outbox.empty():
                items.append(self.outbox.get_nowait())  # published together: one message
            closing = items[-1] is None
            batch, partial = self._merge([item for item in items if item is not None])
            if batch:
                await self._send(layer, batch, partial)
            if closing:
                return

    def _merge(
        self, items: list[tuple[list[dict[str, Any]], dict[str, Any] | None]]
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The frames of queued items in order, with the text so far of the last one.

        A tick takes the deltas pending now only when nothing is queued behind it: a frame
        queued later took the deltas that came before it, and the ones pending now came after
        it, so taking them at the tick's place would send them ahead of that frame.
        """
        batch: list[dict[str, Any]] = []
        partial = None
        for index, (queued, snapshot) in enumerate(items):
            if not queued:  # a tick
                if index + 1 < len(items) or not self.pending or not self.listeners:
                    continue  # kept pending; listeners_changed() sends them when one joins
                queued, snapshot = self._take(None)
            batch.extend(queued)
            partial = snapshot if snapshot is not None else partial
        return batch, partial

    async def _send(
        self, layer: Any, batch: list[dict[str, Any]], partial: dict[str, Any] | None
    ) -> None:
        try:
            if partial is not None:
                await store_partial(self.session_id, partial)
                self.partial_stored = True
            ended = any(f["type"] in ("message_done", "message_failed") for f in batch)
            if ended and self.partial_stored:
                await clear_partial(self.session_id)
                self.partial_stored = False
            message = {"type": "play.relay", "origin": PROCESS_ID, "frames": batch}
            await send_elsewhere(layer, self.group, message)
            self.sent_messages += 1
        except Exception:
            log.exception("could not forward frames of session %s", self.session_id)


def _own_prefix(layer: Any) -> bytes | None:
    """What the names of this process's channels start with (channels_redis layers), else None.

    Channel names of one process share the layer's ``client_prefix``.
    """
    prefix = getattr(layer, "client_prefix", None)
    if getattr(layer, "_group_key", None) is None or prefix is None:
        return None
    return f"specific.{prefix}!".encode()


async def send_elsewhere(layer: Any, group: str, message: dict[str, Any]) -> None:
    """``group_send`` to the group's channels of other processes only.

    This process's own sockets are in the group too, and they got every frame from the hub
    already: a plain ``group_send`` would push each frame through Redis to them (a script, then
    their reader's pops) only to be dropped. The members are read when the frame goes, as
    ``group_send`` reads them, so a socket that joined before still gets it. Layers that are not
    channels_redis get a plain ``group_send``.
    """
    own = _own_prefix(layer)
    if own is None:
        await layer.group_send(group, message)
        return
    key = layer._group_key(group)
    pipe = layer.connection(layer.consistent_hash(group)).pipeline(transaction=False)
    pipe.zremrangebyscore(key, min=0, max=int(time.time()) - layer.group_expiry)
    pipe.zrange(key, 0, -1)
    _, members = await pipe.execute()
    for member in members:
        if bytes(member).startswith(own):
            continue
        try:
            await layer.send(bytes(member).decode(), message)
        except ChannelFull:  # as group_send does: a full channel misses this message
            log.info("channel of group %s over capacity", group)


async def remote_listeners(groups: list[str]) -> dict[str, bool]:
    """For each group, whether a channel of another process is in it (channels_redis layers).

    One pipelined round trip per Redis shard; any other kind of layer is assumed to have remote
    listeners everywhere.
    """
    layer = get_channel_layer()
    own = _own_prefix(layer)
    if own is None:
        return dict.fromkeys(groups, True)
    by_shard: dict[int, list[str]] = {}
    for group in groups:
        by_shard.setdefault(layer.consistent_hash(group), []).append(group)
    found: dict[str, bool] = {}
    for index, shard_groups in by_shard.items():
        pipe = layer.connection(index).pipeline(transaction=False)
        for group in shard_groups:
            pipe.zrange(layer._group_key(group), 0, -1)
        for group, members in zip(shard_groups, await pipe.execute(), strict=True):
            found[group] = any(not bytes(m).startswith(own) for m in members)
    return found


def coalesce_deltas(deltas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge runs of consecutive deltas of one message into single frames."""
    out: list[dict[str, Any]] = []
    for d in deltas:
        merge_delta(out, d)
    return out


def merge_delta(out: list[Any], delta: dict[str, Any]) -> None:
    """Append ``delta`` to ``out``, merged into the last item when that is a frame it continues.

    ``out``'s frames are copies, its own to change; ``delta`` is left as it is.
    """
    last = out[-1] if out else None
    if isinstance(last, dict) and mergeable(last, delta):
        last["text"] += delta["text"]
        last["seq"] = delta["seq"]
    else:
        out.append(dict(delta))


def mergeable(last: dict[str, Any], delta: dict[str, Any]) -> bool:
    """Whether ``delta`` continues ``last`` and both fit in one frame."""
    return (
        last["message_id"] == delta["message_id"]
        and last["seq"] + 1 == delta["first_seq"]
        and len(last["text"]) + len(delta["text"]) <= MAX_MERGED_DELTA_CHARS
    )


async def group_send_now(session_id: str, batch: list[dict[str, Any]]) -> None:
    try:
        message = {"type": "play.relay", "origin": PROCESS_ID, "frames": batch}
        await send_elsewhere(get_channel_layer(), group_name(session_id), message)
    except Exception:
        log.exception("could not forward frames of session %s", session_id)
