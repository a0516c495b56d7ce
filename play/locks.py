"""One turn at a time per session, across processes (architecture "The turn").

With REDIS_URL set the lock is a Redis key taken with ``SET NX PX`` and a random token, renewed
while the turn runs and released only by its holder (compare-and-delete), so a killed process
frees the session when its lease expires. Without Redis a process-local table does the same job
for the single embedded process. Acquiring never waits: a held lock means "busy".

The lock is the fast answer, not the last word: a Redis restart forgets every key. A lease whose
key vanished takes it back at its next renewal when nobody else has; a turn's real hold on its
session is its claim in the database (play.recovery), which a commit checks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import weakref
from typing import Any, Protocol

from django.conf import settings

log = logging.getLogger(__name__)

KEY_PREFIX = "fabula:play:lock:"

_RETAKE = """
local held = redis.call('get', KEYS[1])
if held == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
if not held then
  return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) and 1 or 0
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


RELEASE_SECONDS = 5.0  # the longest a release waits on Redis; the lock's TTL frees it anyway


def lock_ttl_ms() -> int:
    return int(getattr(settings, "FABULA_TURN_LOCK_TTL_MS", 12_000))


class Lease(Protocol):
    key: str
    token: str

    @property
    def lost(self) -> bool: ...

    async def release(self) -> None: ...


class LockBackend(Protocol):
    async def acquire(self, name: str, *, tag: str = "") -> Lease | None: ...

    async def is_held(self, name: str) -> bool: ...

    async def holder(self, name: str) -> str | None: ...

    async def release_token(self, name: str, token: str) -> bool: ...


# --- process-local ---------------------------------------------------------------------------


class LocalLease:
    def __init__(self, table: dict[str, str], key: str, tag: str = "") -> None:
        self.key = key
        self.token = tag + secrets.token_hex(8)
        self._table = table

    @property
    def lost(self) -> bool:
        return self._table.get(self.key) != self.token

    async def release(self) -> None:
        if self._table.get(self.key) == self.token:
            del self._table[self.key]


class LocalLocks:
    """Try-locks in a dict; the event loop is single-threaded, so check-and-set is atomic."""

    def __init__(self) -> None:
        self.table: dict[str, str] = {}

    async def acquire(self, name: str, *, tag: str = "") -> LocalLease | None:
        """The lock, or None when held; ``tag`` starts its token (who holds it: play.save_wait)."""
        key = KEY_PREFIX + name
        if key in self.table:
            return None
        lease = LocalLease(self.table, key, tag)
        self.table[key] = lease.token
        return lease

    async def is_held(self, name: str) -> bool:
        return KEY_PREFIX + name in self.table

    async def holder(self, name: str) -> str | None:
        """The token that holds the lock, None when free."""
        return self.table.get(KEY_PREFIX + name)

    async def release_token(self, name: str, token: str) -> bool:
        """Free the lock if ``token`` still holds it (a holder known to be dead)."""
        key = KEY_PREFIX + name
        if token and self.table.get(key) == token:
            del self.table[key]
            return True
        return False


# --- Redis -----------------------------------------------------------------------------------


class RedisLease:
    def __init__(self, renewals: Renewals, key: str, token: str, ttl_ms: int) -> None:
        self.key = key
        self.token = token
        self.ttl_ms = ttl_ms
        self._renewals = renewals
        self._lost = False
        self._released = False
        renewals.add(self)

    @property
    def lost(self) -> bool:
        return self._lost

    async def release(self) -> None:
        """Free the lock; never waits long, since a turn's last frames go out after it."""
        self._released = True
        renewals = self._renewals
        renewals.discard(self)
        # A lease taken in another event loop (async_to_sync in a sync caller) is renewed
        # there: that loop may be closed already, and nothing of it can be awaited here.
        if renewals.loop is asyncio.get_running_loop():
            await renewals.settled(self)  # a renewal in flight would take the key back
        try:
            await asyncio.wait_for(
                renewals.client.eval(_RELEASE, 1, self.key, self.token), RELEASE_SECONDS
            )
        except Exception:
            log.warning("could not release lock %s; it expires by itself", self.key, exc_info=True)


class Renewals:
    """Every Redis lease of one event loop, renewed by one task in one round trip per period.

    A task per lease cost each streaming turn a task, its coroutine and a timer every period,
    and 500 streaming turns sent 500 EVALs every 4 s. One task sends those that are due (a
    third of their TTL after the last renewal) in one pipeline, and ends when none is left.
    Nothing here is ever cancelled by a release: redis-py turns a cancel that lands while a
    command waits for a pooled connection into a ``ConnectionError``, which once left a turn
    without ``message_done`` (bench/relay.py at 500 sessions). A release waits for a renewal of
    its lease in flight instead, so that the renewal cannot take the key back after it.
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.loop = asyncio.get_running_loop()
        self.due: dict[RedisLease, float] = {}  # lease -> when its next renewal is due
        self.flying: frozenset[RedisLease] = frozenset()
        self.flight: asyncio.Future[None] | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def add(self, lease: RedisLease) -> None:
        self.due[lease] = time.monotonic() + lease.ttl_ms / 3000
        if self._task is None or self._task.done():
            self._task = self.loop.create_task(self._run())
        else:
            self._wake.set()  # it may be due before the task's next wake-up

    def discard(self, lease: RedisLease) -> None:
        self.due.pop(lease, None)

    async def settled(self, lease: RedisLease) -> None:
        flight = self.flight
        if flight is not None and not flight.done() and lease in self.flying:
            await asyncio.wait([flight], timeout=RELEASE_SECONDS)

    async def _run(self) -> None:
        while self.due:
            now = time.monotonic()
            wait = min(self.due.values(), default=now) - now
            if wait > 0:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)
                continue
            await self._renew([lease for lease, at in list(self.due.items()) if at <= now])

    async def _renew(self, leases: list[RedisLease]) -> None:
        for lease in leases:  # next period, whatever happens to this one: the TTL covers a blip
            self.due[lease] = time.monotonic() + lease.ttl_ms / 3000
        self.flying, self.flight = frozenset(leases), self.loop.create_future()
        try:
            pipe = self.client.pipeline(transaction=False)
            for lease in leases:
                # After a Redis restart the key is gone: take it back unless someone else has.
                pipe.eval(_RETAKE, 1, lease.key, lease.token, lease.ttl_ms)
            kept = await pipe.execute(raise_on_error=False)
        except Exception:
            log.warning("could not renew %d locks", len(leases), exc_info=True)
            return
        finally:
            self.flight.set_result(None)
        for lease, result in zip(leases, kept, strict=True):
            if isinstance(result, Exception):
                log.warning("could not renew lock %s: %s", lease.key, result)
            elif not result and lease in self.due:  # not released meanwhile
                lease._lost = True
                self.discard(lease)
                log.error("lost lock %s (expired or taken over)", lease.key)


class RedisLocks:
    def __init__(self, url: str) -> None:
        self.url = url
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )
        self._renewals: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Renewals] = (
            weakref.WeakKeyDictionary()
        )

    def client(self) -> Any:
        import redis.asyncio as aioredis

        loop = asyncio.get_running_loop()
        if loop not in self._clients:
            # A blocking pool waits for a free connection when hundreds of turns start at once;
            # the default pool of redis-py 8 would refuse the 101st command instead. No CLIENT
            # SETINFO (config.settings' CHANNEL_LAYERS says why).
            pool = aioredis.BlockingConnectionPool.from_url(
                self.url, max_connections=256, timeout=20, driver_info=None
            )
            self._clients[loop] = aioredis.Redis(connection_pool=pool)
        return self._clients[loop]

    async def acquire(self, name: str, *, tag: str = "") -> RedisLease | None:
        """The lock, or None when held; ``tag`` starts its token (who holds it: play.save_wait)."""
        key = KEY_PREFIX + name
        token = tag + secrets.token_hex(16)
        ttl = lock_ttl_ms()
        if not await self.client().set(key, token, nx=True, px=ttl):
            return None
        return RedisLease(self.renewals(), key, token, ttl)

    def renewals(self) -> Renewals:
        """The renewals of the running event loop's leases."""
        loop = asyncio.get_running_loop()
        if loop not in self._renewals:
            self._renewals[loop] = Renewals(self.client())
        return self._renewals[loop]

    async def is_held(self, name: str) -> bool:
        return bool(await self.client().exists(KEY_PREFIX + name))

    async def holder(self, name: str) -> str | None:
        """The token that holds the lock, None when free."""
        held = await self.client().get(KEY_PREFIX + name)
        return held.decode() if isinstance(held, bytes) else held

    async def release_token(self, name: str, token: str) -> bool:
        """Free the lock if ``token`` still holds it (a holder known to be dead)."""
        if not token:
            return False
        return bool(await self.client().eval(_RELEASE, 1, KEY_PREFIX + name, token))


_local = LocalLocks()
_redis: dict[str, RedisLocks] = {}


def lock_backend() -> LocalLocks | RedisLocks:
    """The Redis locks when settings.REDIS_URL is set, else the process-local table."""
    url = str(getattr(settings, "REDIS_URL", "") or "")
    if not url:
        return _local
    if url not in _redis:
        _redis[url] = RedisLocks(url)
    return _redis[url]


def reset_local_locks() -> None:
    """Forget every process-local lock (tests)."""
    _local.table.clear()
