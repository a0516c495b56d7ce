"""The text so far of a running turn, stored in Redis for sockets that join on another process.

The ``GroupPump`` stores it with each delta batch it sends, so a socket connecting elsewhere
mid-turn starts from it and continues with the next batch without a gap. Apart from the relay
because it is a small key-value store with its own key and lifetime.
"""

from __future__ import annotations

import json
from typing import Any

from play.locks import lock_backend, lock_ttl_ms

PARTIAL_PREFIX = "fabula:play:partial:"


def _redis() -> Any:
    backend = lock_backend()
    return backend.client() if hasattr(backend, "client") else None


async def store_partial(session_id: str, partial: dict[str, Any]) -> None:
    client = _redis()
    if client is not None:
        await client.set(PARTIAL_PREFIX + session_id, json.dumps(partial), px=2 * lock_ttl_ms())


async def clear_partial(session_id: str) -> None:
    client = _redis()
    if client is not None:
        await client.delete(PARTIAL_PREFIX + session_id)


async def load_partial(session_id: str) -> dict[str, Any] | None:
    """The text so far of a turn running in another process, as its last batch left it."""
    client = _redis()
    if client is None:
        return None
    raw = await client.get(PARTIAL_PREFIX + session_id)
    if not raw:
        return None
    data: dict[str, Any] = json.loads(raw)
    return data
