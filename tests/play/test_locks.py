"""The process-local session lock (the Redis one is in tests/integration)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from play.locks import LocalLocks, RedisLease, Renewals, lock_backend


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


class Pipelines:
    """A Redis client whose renewals go in pipelines, each held until the test lets it go."""

    def __init__(self, kept: int = 1) -> None:
        self.kept = kept
        self.batches: list[list[str]] = []  # the tokens of each renewal pipeline
        self.released: list[str] = []
        self.events: list[str] = []
        self.sent = asyncio.Event()
        self.answer = asyncio.Event()

    def pipeline(self, transaction: bool) -> Any:
        client, tokens = self, []

        class Pipe:
            def eval(self, script: str, keys: int, key: str, token: str, ttl: int) -> None:
                tokens.append(token)

            async def execute(self, raise_on_error: bool) -> list[Any]:
                client.batches.append(tokens)
                client.sent.set()
                await client.answer.wait()
                client.events += [f"renewed {token}" for token in tokens]
                return [client.kept] * len(tokens)

        return Pipe()

    async def eval(self, script: str, keys: int, key: str, token: str) -> int:
        self.released.append(token)
        self.events.append(f"released {token}")
        return 1


async def test_the_leases_of_a_loop_are_renewed_together_in_one_round_trip():
    client = Pipelines()
    client.answer.set()
    renewals = Renewals(client)
    leases = [RedisLease(renewals, f"k{n}", f"t{n}", ttl_ms=60) for n in range(3)]
    await asyncio.wait_for(client.sent.wait(), 5)
    assert client.batches[0] == ["t0", "t1", "t2"]
    # A few periods of 20 ms; a loaded machine may run fewer in a fixed time, so the test waits
    # for the second round trip and bounds the count by the periods that really passed.
    started = time.monotonic()
    while len(client.batches) < 3 and time.monotonic() - started < 5:
        await asyncio.sleep(0.02)
    periods = (time.monotonic() - started) / 0.02
    assert all(batch == ["t0", "t1", "t2"] for batch in client.batches)
    assert 3 <= len(client.batches) <= periods + 2  # renewed again, once a period, not spinning
    for lease in leases:
        await lease.release()
    await asyncio.sleep(0.05)
    assert renewals._task is not None and renewals._task.done()  # nothing left to renew


async def test_a_release_waits_for_its_renewal_in_flight_then_frees_the_key():
    client = Pipelines()
    lease = RedisLease(Renewals(client), "k", "t", ttl_ms=30)
    await asyncio.wait_for(client.sent.wait(), 5)  # the renewal is mid-command
    release = asyncio.ensure_future(lease.release())
    await asyncio.sleep(0.05)
    assert not release.done()
    client.answer.set()
    await asyncio.wait_for(release, 5)
    assert client.events == ["renewed t", "released t"]  # the key is not taken back after


async def test_a_renewal_that_finds_the_key_taken_marks_the_lease_lost():
    client = Pipelines(kept=0)
    client.answer.set()
    lease = RedisLease(Renewals(client), "k", "t", ttl_ms=30)
    await asyncio.wait_for(client.sent.wait(), 5)
    await asyncio.sleep(0.01)
    assert lease.lost
    await asyncio.sleep(0.05)
    assert len(client.batches) == 1  # a lost lease is not renewed again
