"""httpcore's locks and events, on asyncio, without a deque each.

Every model stream holds a connection of httpcore (under the SDKs' httpx) with two locks (the
connection's and its HTTP/1.1 state's) and, for as long as the response is open, its pool
request's "connection acquired" event. On asyncio httpcore makes them anyio's, and anyio's
``Lock`` and ``Event`` each allocate a ``collections.deque`` for waiters up front (a 64-slot
block): 2.1 KiB a stream of the 23 a stream holds in all (tracemalloc, a 21-message prompt, the
site transport), mostly for waiters that never come, since each stream has its connection to
itself. ``asyncio.Lock`` makes its waiters' deque only when a second task waits, and the event
below keeps a list of futures only while somebody waits.

``AsyncLock.setup`` and ``AsyncEvent.setup`` are replaced; the patch applies only to the
versions of those methods it was written against (compared by a hash of their source), and
``tests/config/test_httpcore_sync.py`` says so instead of passing for any other httpcore.
Trio keeps its own primitives either way.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from config.daphne_queues import source_hash

log = logging.getLogger(__name__)

# sha256 of httpcore2 2.16's ``AsyncLock.setup`` and ``AsyncEvent.setup`` sources.
WRITTEN_FOR = {
    "AsyncLock": "beb96642b6bfe4d13e964dc017f2126a8f5a56d9eff0323c55bb075cdb1fdb1f",
    "AsyncEvent": "56e1520fe59c4e1236025c068a38d7b2c56e6fd42b68cb70488dde32c020dce7",
}


class LightEvent:
    """What httpcore asks of an event (``set``, ``wait``), with no waiters' deque."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    async def wait(self) -> None:
        if self._set:
            return
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)


def install() -> bool:
    """Patch httpcore2's asyncio lock and event; idempotent. False if not applied."""
    from httpcore2 import _synchronization

    sync: Any = _synchronization
    lock_setup: Any = sync.AsyncLock.setup
    event_setup: Any = sync.AsyncEvent.setup
    if getattr(lock_setup, "light", False):
        return True
    if (source_hash(lock_setup), source_hash(event_setup)) != (
        WRITTEN_FOR["AsyncLock"],
        WRITTEN_FOR["AsyncEvent"],
    ):
        log.info("httpcore's AsyncLock/AsyncEvent are not the ones known here: anyio's are kept")
        return False

    def lock(self: Any) -> None:
        self._backend = sync.current_async_library()
        if self._backend == "trio":
            self._trio_lock = sync.trio.Lock()
        elif self._backend == "asyncio":
            self._anyio_lock = asyncio.Lock()  # the same acquire and release

    def event(self: Any) -> None:
        self._backend = sync.current_async_library()
        if self._backend == "trio":
            self._trio_event = sync.trio.Event()
        elif self._backend == "asyncio":
            self._anyio_event = LightEvent()  # the same set and wait

    lock.light = event.light = True  # type: ignore[attr-defined]
    sync.AsyncLock.setup = lock
    sync.AsyncEvent.setup = event
    return True
