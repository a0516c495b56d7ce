"""The process-local session lock (the Redis one is in tests/integration)."""

from __future__ import annotations

import asyncio
from typing import Any

from play.locks import LocalLocks, RedisLease, lock_backend


async def test_a_held_lock_is_busy_until_released():
    locks = LocalLocks()
    lease = await locks.acquire("s1")
    assert lease is not None
    assert await locks.acquire("s1") is None
    assert await locks.is_held("s1")
    assert await locks.acquire("s2") is not None
    await lease.release()
    assert not await locks.is_held("s1")
    assert await locks.acquire("s1") is not None


async def test_a_stale_lease_cannot_release_a_newer_holder():
    locks = LocalLocks()
    old = await locks.acquire("s1")
    assert old is not None
    locks.table.clear()  # as if it had expired
    new = await locks.acquire("s1")
    assert new is not None
    assert old.lost
    await old.release()
    assert await locks.is_held("s1")


def test_without_redis_the_backend_is_process_local(settings):
    settings.REDIS_URL = ""
    assert isinstance(lock_backend(), LocalLocks)


async def test_a_dead_holders_lock_is_freed_only_with_its_own_token():
    locks = LocalLocks()
    lease = await locks.acquire("s1")
    assert lease is not None
    assert not await locks.release_token("s1", "someone-else")
    assert await locks.is_held("s1")
    assert await locks.release_token("s1", lease.token)
    assert not await locks.is_held("s1")


class PoolSwallowingCancels:
    """A Redis client whose renew waits for a pooled connection, and which turns a cancel of
    that wait into a ``ConnectionError`` (what redis-py's blocking pool can do under load)."""

    def __init__(self) -> None:
        self.renewing = asyncio.Event()
        self.released: list[str] = []

    async def eval(self, script: str, keys: int, key: str, token: str, *args: Any) -> int:
        if args:  # the renew: waits for a connection that never frees up
            self.renewing.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                raise ConnectionError("No connection available.") from None
        self.released.append(token)
        return 1


async def test_a_release_ends_even_when_the_client_swallows_the_renewers_cancel():
    client = PoolSwallowingCancels()
    lease = RedisLease(client, "fabula:lock:s1", "token-1", ttl_ms=30)
    await asyncio.wait_for(client.renewing.wait(), 5)  # the renewer is mid-command

    await asyncio.wait_for(lease.release(), 10)

    assert client.released == ["token-1"]
    await asyncio.sleep(0.05)  # a renewer that loops on would be renewing again by now
    assert lease._renewer.done()
