"""Turn starts and ends wait for the event loop to have slack: replies already streaming first.

A turn's start and end are each a few milliseconds of CPU on the process's database thread,
and that thread takes the GIL from the event loop that relays every other session's tokens.
When 100 turns start in a second (bench/relay.py, 500 sessions), that work alone fills most
of a core, and every streaming session's next token waited behind it: a token p99 of 400 ms
while starts piled up, against 40-80 ms between them. A player barely notices a start later by
a few hundred milliseconds; a stream that stalls for as long, everyone on the process sees.

So each such job first waits, in arrival order, until one pass of the loop takes under
``LAG_LIMIT``, but never longer than ``MAX_WAIT`` after it arrived: under a long overload the
jobs go at the thread's full rate, as before.
"""

from __future__ import annotations

import asyncio
from weakref import WeakKeyDictionary

LAG_LIMIT = 0.005  # seconds one pass of the loop may take for a job to start now
PAUSE = 0.005  # seconds between looks when the loop is behind
MAX_WAIT = 1.5  # seconds after arrival at which a job goes whatever the lag

_locks: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = WeakKeyDictionary()


async def slack() -> None:
    """Return once the loop has slack, or ``MAX_WAIT`` after the call: then start the work.

    Waiters look one at a time, in arrival order. Only the start is paced: the work itself
    runs outside, so while the loop keeps up, the database thread gets one job after another
    without a pass of the loop in between (holding a slot until each job's end cut the turn
    starts a process could make under load).
    """
    loop = asyncio.get_running_loop()
    give_up = loop.time() + MAX_WAIT
    lock = _locks.get(loop)
    if lock is None:
        lock = _locks[loop] = asyncio.Lock()
    async with lock:
        while loop.time() < give_up:
            began = loop.time()
            await asyncio.sleep(0)  # one pass: everything ready runs before we resume
            if loop.time() - began < LAG_LIMIT:
                return
            await asyncio.sleep(PAUSE)
