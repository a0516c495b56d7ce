"""A turn sent while a background save holds its session waits for it (issue 33 §5;
architecture "Background work").

The memory summary (play.memory) and the story compaction (play.tasks) write their result
under the session's lock, between turns: a few milliseconds, or as long as another player's
turn keeps the table's lock from them. They take it with a token that starts with
``SAVE_TAG``, so a turn that finds the lock held can tell a save from another turn. A save is
waited for, up to ``SAVE_WAIT_SECONDS``, and the player is told once that the story is being
saved; another turn's lock is still "busy" at once, as before. A save that outlasts the wait
leaves the turn busy too: the player sends again.
"""

from __future__ import annotations

import asyncio
import time

from django.utils.translation import gettext, gettext_noop

from play import frames
from play.locks import Lease, lock_backend
from play.relay import relay

SAVE_TAG = "save-"
SAVE_WAIT_SECONDS = 5.0
POLL_SECONDS = 0.05
SAVING = gettext_noop("Saving the story… your action follows in a moment.")


async def hold_for_save(session_id: str) -> Lease | None:
    """The session's lock for a background save; None while a turn (or a save) holds it."""
    return await lock_backend().acquire(session_id, tag=SAVE_TAG)


async def saving(session_id: str) -> bool:
    """Whether a background save holds the session's lock now."""
    holder = await lock_backend().holder(session_id)
    return bool(holder) and str(holder).startswith(SAVE_TAG)


async def acquire_turn_lock(session_id: str) -> Lease | None:
    """The session's lock for a turn. While a background save holds it, wait for it (telling
    the session's sockets once); None when another turn holds it, or the save outlasts the
    wait."""
    backend = lock_backend()
    lease = await backend.acquire(session_id)
    if lease is not None or not await saving(session_id):
        return lease
    relay.publish(session_id, frames.notification(gettext(SAVING), "info"))
    deadline = time.monotonic() + SAVE_WAIT_SECONDS
    while time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        lease = await backend.acquire(session_id)
        if lease is not None or not await saving(session_id):
            return lease
    return None
