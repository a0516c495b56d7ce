"""The deadline of a stream's reads, kept with one lazily moved timer per stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import TypeVar

T = TypeVar("T")


class ReadDeadline:
    """When the read in progress must end: one timer per stream, moved forward lazily.

    ``asyncio.timeout`` around each read schedules a timer and cancels it again for every
    token: at 500 streams that was a tenth of a play process's CPU (bench/relay.py under
    py-spy). Here a read only notes its deadline; the timer, when it fires, either finds the
    deadline moved on and sleeps until then, or cancels the reading task, which the read turns
    into ``TimeoutError`` the way ``asyncio.timeout`` does (a cancellation from elsewhere stays
    one).
    """

    __slots__ = ("_expired", "_loop", "_reading", "_task", "_timer", "_until")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        task = asyncio.current_task()
        assert task is not None, "streams are read by a task"
        self._loop = loop
        self._task = task
        self._until = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._reading = False
        self._expired = False

    async def next(self, chunks: AsyncGenerator[T, None], until: float) -> T | None:
        """The next chunk, or None at the end; TimeoutError when none came by ``until``."""
        self._until = until
        if self._timer is None or self._timer.when() > until:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self._loop.call_at(until, self._check)
        cancelling = self._task.cancelling()
        self._reading = True
        try:
            return await anext(chunks, None)
        except asyncio.CancelledError:
            if self._expired and self._task.uncancel() <= cancelling:
                raise TimeoutError from None
            raise
        finally:
            self._reading, self._expired = False, False

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check(self) -> None:
        self._timer = None
        if not self._reading:
            return  # the next read arms it again
        if self._loop.time() < self._until:
            self._timer = self._loop.call_at(self._until, self._check)
            return
        self._expired = True
        self._task.cancel()
