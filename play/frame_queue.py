"""The queue of one socket's (or one session pump's) frames, sized for thousands per process."""

from __future__ import annotations

import asyncio
from typing import Any, Generic, TypeVar

Item = tuple[dict[str, Any], str]  # a frame and its encoded text
T = TypeVar("T")


class FrameQueue(Generic[T]):
    """A socket's frames waiting to be sent: a list and, while the socket's task waits, a future.

    Every open socket has one, so its size is per-session memory: an ``asyncio.Queue`` is four
    deques (each allocates a 64-slot block) and an ``Event``, about 3 KiB under tracemalloc;
    this is an empty list until frames queue up. One consumer only: a socket's forwarding task
    (``Subscription.forward``), a session's group pump (``play.relay_fanout.GroupPump``).
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[T] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def get_nowait(self) -> T:
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.pop(0)

    async def get(self) -> T:
        """The first frame, waiting for one; a cancelled wait takes nothing off the queue."""
        while not self._items:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:  # a get that replaced this cancelled one keeps its own
                    self._waiter = None
        return self._items.pop(0)

    def take_all(self) -> list[T]:
        items, self._items = self._items, []
        return items


class BoundedFrameQueue(FrameQueue[T]):
    """A ``FrameQueue`` that keeps the newest ``maxsize`` items, as channels_redis' buffer does.

    The per-channel receive buffer of ``config.redis_layer``: a consumer that stopped reading
    loses its oldest messages instead of growing without end.
    """

    __slots__ = ("maxsize",)

    def __init__(self, maxsize: int) -> None:
        super().__init__()
        self.maxsize = maxsize

    def full(self) -> bool:
        return 0 < self.maxsize <= self.qsize()

    def put_nowait(self, item: T) -> None:
        if self.full():
            self.get_nowait()
        super().put_nowait(item)
