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

from play.frame_queue import BoundedFrameQueue


class RedisChannelLayer(BaseRedisChannelLayer):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.receive_buffer: collections.defaultdict[str, BoundedFrameQueue[Any]]
        self.receive_buffer = collections.defaultdict(
            functools.partial(BoundedFrameQueue, self.capacity)
        )
