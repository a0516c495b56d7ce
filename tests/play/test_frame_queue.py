"""A socket's frame queue (play.frame_queue): order kept, a cancelled wait loses nothing."""

from __future__ import annotations

import asyncio

import pytest

from play.frame_queue import BoundedFrameQueue, FrameQueue


def item(n: int) -> tuple[dict[str, object], str]:
    return ({"type": "delta", "seq": n}, f'{{"seq":{n}}}')


async def test_frames_come_out_in_the_order_they_went_in():
    queue = FrameQueue()
    for n in range(3):
        queue.put_nowait(item(n))
    assert queue.qsize() == 3 and not queue.empty()
    assert await queue.get() == item(0)
    assert queue.get_nowait() == item(1)
    queue.put_nowait(item(3))
    assert queue.take_all() == [item(2), item(3)]
    assert queue.empty()
    with pytest.raises(asyncio.QueueEmpty):
        queue.get_nowait()


async def test_a_waiting_get_wakes_for_the_next_frame():
    queue = FrameQueue()
    waiting = asyncio.ensure_future(queue.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    queue.put_nowait(item(7))
    queue.put_nowait(item(8))
    assert await waiting == item(7)
    assert queue.take_all() == [item(8)]


async def test_a_cancelled_wait_takes_nothing_and_the_next_get_still_works():
    queue = FrameQueue()
    waiting = asyncio.ensure_future(queue.get())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    queue.put_nowait(item(1))  # no waiter left behind to swallow it
    assert queue.qsize() == 1
    assert await asyncio.wait_for(queue.get(), 1) == item(1)


async def test_a_frame_put_between_the_wake_and_the_read_is_not_lost():
    queue = FrameQueue()
    waiting = asyncio.ensure_future(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait(item(1))
    queue.put_nowait(item(2))  # the waiter is already done: no second set_result
    assert await waiting == item(1)
    assert await queue.get() == item(2)


def test_a_bounded_queue_keeps_the_newest_items():
    queue = BoundedFrameQueue(3)
    for n in range(5):
        queue.put_nowait(item(n))
    assert queue.full()
    assert queue.take_all() == [item(2), item(3), item(4)]
    unbounded = BoundedFrameQueue(0)  # as asyncio.Queue: 0 is no bound
    for n in range(100):
        unbounded.put_nowait(item(n))
    assert unbounded.qsize() == 100 and not unbounded.full()


async def test_a_replacing_get_keeps_its_waiter_when_the_cancelled_one_unwinds():
    queue = FrameQueue()
    first = asyncio.ensure_future(queue.get())
    await asyncio.sleep(0)
    second = asyncio.ensure_future(queue.get())  # channels_redis starts a new get per round
    await asyncio.sleep(0)
    first.cancel()  # and cancels the old one, which unwinds after the new one waits
    with pytest.raises(asyncio.CancelledError):
        await first
    queue.put_nowait(item(5))
    assert await asyncio.wait_for(second, 1) == item(5)
