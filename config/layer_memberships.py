"""The channel-layer groups this process's channels are in, added again when Redis forgets them.

channels_redis keeps each group as a sorted set in Redis. A Redis restarted without its data
forgets every group while the processes, their sockets and their channels live on: a socket
whose connection the restart happened not to break stayed open and never again heard another
process's frames, its table's lines or its sign-out (the fault suite's "Redis restarted
mid-turn" waited a minute for an end frame that had gone to nobody). Here every ``group_add``
is remembered until its ``group_discard``, and one task per event loop reads each Redis shard's
``run_id`` once a ``CHECK_SECONDS``: a new one is a restarted server, and every membership on it
is added again. Only groups are at stake: channels are names, and a pop after the restart finds
the next message sent to them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from typing import Any

log = logging.getLogger("config.redis_layer")

CHECK_SECONDS = 1.0


class Memberships:
    """What ``group_add`` was asked, per shard, until ``group_discard``; and the watcher."""

    def __init__(self, layer: Any) -> None:
        self.layer = layer
        self.joined: dict[tuple[str, str], float] = {}  # (group, channel) -> when added
        self._watchers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = (
            weakref.WeakKeyDictionary()
        )

    def added(self, group: str, channel: str) -> None:
        self.joined[(group, channel)] = time.time()
        loop = asyncio.get_running_loop()
        watcher = self._watchers.get(loop)
        if watcher is None or watcher.done():
            self._watchers[loop] = loop.create_task(self._watch())

    def discarded(self, group: str, channel: str) -> None:
        self.joined.pop((group, channel), None)

    def stop(self) -> None:
        for watcher in list(self._watchers.values()):
            watcher.cancel()
        self._watchers.clear()

    async def _watch(self) -> None:
        """Rejoin once at the start (a restart may have come before the first reading), then
        whenever a shard answers with another ``run_id``; ends when nothing is joined."""
        seen: dict[int, str] = {}
        restarted = set(range(self.layer.ring_size))
        while self.joined:
            if restarted:
                await self._rejoin(restarted)
            await asyncio.sleep(CHECK_SECONDS)
            restarted = set()
            for index in range(self.layer.ring_size):
                run_id = await self._run_id(index)
                if run_id is None:
                    continue  # away: the next answer tells whether it restarted meanwhile
                if seen.get(index, run_id) != run_id:
                    log.warning("Redis shard %d restarted: its groups are joined again", index)
                    restarted.add(index)
                seen[index] = run_id

    async def _run_id(self, index: int) -> str | None:
        try:
            info = await self.layer.connection(index).info("server")
        except Exception:
            info = {}
        _raise_if_cancelled()
        return str(info.get("run_id", "")) or None

    async def _rejoin(self, shards: set[int]) -> None:
        expired = time.time() - self.layer.group_expiry
        for (group, channel), since in list(self.joined.items()):
            if since < expired:
                self.joined.pop((group, channel), None)  # as channels_redis would drop it
                continue
            if self.layer.consistent_hash(group) not in shards:
                continue
            with contextlib.suppress(Exception):  # still away: the next restart check retries
                await self.layer.add_to_group(group, channel, since)
            _raise_if_cancelled()


def _raise_if_cancelled() -> None:
    """redis-py swallows a cancel that lands mid-command (it finishes the command, or raises a
    ConnectionError); the watcher must still end then: a closing event loop cancels it once and
    waits for it."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
