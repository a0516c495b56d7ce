"""The process-local session lock (the Redis one is in tests/integration)."""

from __future__ import annotations

from play.locks import LocalLocks, lock_backend


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
