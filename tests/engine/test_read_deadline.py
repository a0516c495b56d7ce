"""A stream's read deadline (engine.llm.read_deadline): one timer, moved on lazily."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from engine.llm.read_deadline import ReadDeadline


async def trickle(gaps: list[float]) -> AsyncGenerator[int, None]:
    for i, gap in enumerate(gaps):
        await asyncio.sleep(gap)
        yield i


async def read_all(chunks: AsyncGenerator[int, None], timeout: float) -> list[int]:
    loop = asyncio.get_running_loop()
    reads = ReadDeadline(loop)
    got = []
    try:
        while (chunk := await reads.next(chunks, loop.time() + timeout)) is not None:
            got.append(chunk)
    finally:
        reads.close()
    return got


async def test_a_trickle_longer_than_the_timeout_is_read_whole() -> None:
    assert await read_all(trickle([0.05] * 10), timeout=0.15) == list(range(10))


async def test_a_stall_times_the_read_out() -> None:
    with pytest.raises(TimeoutError):
        await read_all(trickle([0.02, 0.02, 5.0]), timeout=0.15)


async def test_time_spent_between_reads_does_not_count() -> None:
    loop = asyncio.get_running_loop()
    reads = ReadDeadline(loop)
    chunks = trickle([0.0, 0.0])
    assert await reads.next(chunks, loop.time() + 0.1) == 0
    await asyncio.sleep(0.3)  # the consumer is slow; the timer fires with no read waiting
    assert await reads.next(chunks, loop.time() + 0.1) == 1
    reads.close()


async def test_an_earlier_deadline_moves_the_timer_back() -> None:
    loop = asyncio.get_running_loop()
    reads = ReadDeadline(loop)
    chunks = trickle([0.0, 5.0])
    assert await reads.next(chunks, loop.time() + 60) == 0  # a first token's long deadline
    started = loop.time()
    with pytest.raises(TimeoutError):
        await reads.next(chunks, loop.time() + 0.1)
    assert loop.time() - started < 5
    reads.close()


async def test_a_cancellation_from_elsewhere_stays_a_cancellation() -> None:
    async def reader() -> list[int]:
        return await read_all(trickle([0.0, 5.0]), timeout=60)

    task = asyncio.ensure_future(reader())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
