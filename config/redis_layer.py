"""channels_redis' layer with a per-channel receive buffer of a few hundred bytes.

Every open websocket waits on ``receive`` for its channel, and while it waits channels_redis keeps
a buffer for that channel: a ``BoundedQueue`` (an ``asyncio.Queue``, four deques with a 64-slot
block each and an ``Event``), about 3 KiB per open socket (tracemalloc, bench/relay.py at 500
sessions). The layer only calls ``empty``, ``get`` (in a task it may cancel), ``put_nowait`` and
``get_nowait`` on it, which ``play.frame_queue.BoundedFrameQueue`` does with the same order, the
same drop-the-oldest bound, and a cancelled ``get`` that takes nothing.
"""

from __future__ import annotations

import collections
import functools
from typing import Any

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer

from config.layer_memberships import Memberships
from play.frame_queue import BoundedFrameQueue


class RedisChannelLayer(BaseRedisChannelLayer):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.receive_buffer: collections.defaultdict[str, BoundedFrameQueue[Any]]
        self.receive_buffer = collections.defaultdict(
            functools.partial(BoundedFrameQueue, self.capacity)
        )
        self.memberships = Memberships(self)

    async def group_add(self, group: str, channel: str) -> None:
        """channels_redis' add, remembered so that a restarted Redis gets it again
        (config/layer_memberships.py)."""
        self.memberships.added(group, channel)
        await super().group_add(group, channel)

    async def group_discard(self, group: str, channel: str) -> None:
        self.memberships.discarded(group, channel)
        await super().group_discard(group, channel)

    async def add_to_group(self, group: str, channel: str, since: float) -> None:
        """The membership again, dated when it was first added (so it expires as it would)."""
        key = self._group_key(group)
        connection = self.connection(self.consistent_hash(group))
        await connection.zadd(key, {channel: since})
        await connection.expire(key, self.group_expiry)

    async def flush(self) -> None:
        self.memberships.joined.clear()  # every group is deleted: nothing to join again
        await super().flush()

    async def close_pools(self) -> None:
        self.memberships.stop()
        await super().close_pools()
