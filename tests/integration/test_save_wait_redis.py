"""A background save's lock in Redis is told apart from a turn's (issue 33 §5; play.save_wait):
with several processes the turn and the Celery worker's save meet only there."""

from __future__ import annotations

import asyncio
import os
import time

from play import save_wait
from play.locks import lock_backend


async def test_a_turn_waits_for_a_saves_redis_lock_and_is_busy_on_a_turns(settings) -> None:
    settings.REDIS_URL = os.environ["REDIS_URL"]
    name = f"save-wait-{time.monotonic_ns()}"
    save = await save_wait.hold_for_save(name)
    assert save is not None and await save_wait.saving(name)
    waiting = asyncio.create_task(save_wait.acquire_turn_lock(name))
    await asyncio.sleep(0)  # the turn finds the save there (or, later, gone)
    await save.release()
    turn = await waiting
    assert turn is not None and not await save_wait.saving(name)
    assert await save_wait.acquire_turn_lock(name) is None  # another turn's lock: busy
    await turn.release()
    assert await lock_backend().holder(name) is None
