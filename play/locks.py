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
import logging
import secrets
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
    async def acquire(self, name: str) -> Lease | None: ...

    async def is_held(self, name: str) -> bool: ...

    async def release_token(self, name: str, token: str) -> bool: ...


# --- process-local ---------------------------------------------------------------------------


class LocalLease:
    def __init__(self, table: dict[str, str], key: str) -> None:
        self.key = key
        self.token = secrets.token_hex(8)
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

    async def acquire(self, name: str) -> LocalLease | None:
        key = KEY_PREFIX + name
        if key in self.table:
            return None
        lease = LocalLease(self.table, key)
        self.table[key] = lease.token
        return lease

    async def is_held(self, name: str) -> bool:
        return KEY_PREFIX + name in self.table

    async def release_token(self, name: str, token: str) -> bool:
        """Free the lock if ``token`` still holds it (a holder known to be dead)."""
        key = KEY_PREFIX + name
        if token and self.table.get(key) == token:
            del self.table[key]
            return True
        return False


# --- Redis -----------------------------------------------------------------------------------


class RedisLease:
    def __init__(self, client: Any, key: str, token: str, ttl_ms: int) -> None:
        self.key = key
        self.token = token
        self._client = client
        self._ttl_ms = ttl_ms
        self._lost = False
        self._released = False
        self._renewer = asyncio.ensure_future(self._renew_forever())

    @property
    def lost(self) -> bool:
        return self._lost

    async def _renew_forever(self) -> None:
        while not self._released:
            await asyncio.sleep(self._ttl_ms / 3000)
            try:
                # After a Redis restart the key is gone: take it back unless someone else has.
                kept = await self._client.eval(_RETAKE, 1, self.key, self.token, self._ttl_ms)
            except Exception:  # a Redis blip: try again next period, the TTL still covers us
                if self._released:
                    return  # the cancel of ``release``, turned into an error by the client
                log.warning("could not renew lock %s", self.key, exc_info=True)
                continue
            if not kept:
                self._lost = True
                log.error("lost lock %s (expired or taken over)", self.key)
                return

    async def release(self) -> None:
        """Free the lock; never waits long, since a turn's last frames go out after it.

        The renewer is cancelled but not awaited to its end: redis-py turns a cancel that lands
        while a command waits for a pooled connection into a ``ConnectionError``, which a
        renewer that retries on errors would swallow and loop on, and the turn would never send
        ``message_done`` (bench/relay.py at 500 sessions: 1-3% of them; tests/play/test_locks.py).
        """
        self._released = True
        renewer = self._renewer
        renewer.cancel()
        # A lease taken in another event loop (async_to_sync in a sync caller) has its renewer
        # there: that loop may be closed already, and nothing of it can be awaited here.
        if renewer.get_loop() is asyncio.get_running_loop():
            await asyncio.wait([renewer], timeout=RELEASE_SECONDS)
        try:
            await asyncio.wait_for(
                self._client.eval(_RELEASE, 1, self.key, self.token), RELEASE_SECONDS
            )
        except Exception:
            log.warning("could not release lock %s; it expires by itself", self.key, exc_info=True)


class RedisLocks:
    def __init__(self, url: str) -> None:
        self.url = url
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
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

    async def acquire(self, name: str) -> RedisLease | None:
        key = KEY_PREFIX + name
        token = secrets.token_hex(16)
        ttl = lock_ttl_ms()
        if not await self.client().set(key, token, nx=True, px=ttl):
            return None
        return RedisLease(self.client(), key, token, ttl)

    async def is_held(self, name: str) -> bool:
        return bool(await self.client().exists(KEY_PREFIX + name))

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
