"""httpcore's asyncio locks and events are light ones (config.httpcore_sync).

The play process installs them at start (config/asgi.py), so every model stream of the
integration and browser suites goes through them; here: they are what httpcore makes, they
lock and wake as anyio's did, a wait that times out is httpcore's ``PoolTimeout``, and a pool
of one connection serves two streams one after the other (the second waits on the event).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpcore2
import pytest
from httpcore2._synchronization import AsyncEvent, AsyncLock

from config import httpcore_sync
from config.httpcore_sync import LightEvent
from tests.support.model_server import ModelServer, Reply


@pytest.fixture(autouse=True)
def patched() -> None:
    if not httpcore_sync.install():
        pytest.skip(
            "the installed httpcore2's AsyncLock/AsyncEvent.setup are not the ones "
            "config/httpcore_sync.py was written for: anyio's primitives are kept"
        )


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as model_server:
        yield model_server


def test_install_is_idempotent() -> None:
    assert httpcore_sync.install()
    assert getattr(AsyncLock.setup, "light", False) and getattr(AsyncEvent.setup, "light", False)


async def test_the_lock_is_asyncios_and_excludes() -> None:
    lock = AsyncLock()
    inside: list[str] = []

    async def hold(name: str) -> None:
        async with lock:
            inside.append(f"{name} in")
            await asyncio.sleep(0.01)
            inside.append(f"{name} out")

    await asyncio.gather(hold("a"), hold("b"))
    assert isinstance(lock._anyio_lock, asyncio.Lock)
    assert inside == ["a in", "a out", "b in", "b out"]


async def test_the_event_wakes_every_waiter_and_a_set_event_does_not_wait() -> None:
    event = AsyncEvent()
    woken: list[int] = []

    async def waiter(n: int) -> None:
        await event.wait()
        woken.append(n)

    waiters = [asyncio.ensure_future(waiter(n)) for n in range(3)]
    await asyncio.sleep(0)
    assert woken == []
    event.set()
    await asyncio.wait_for(asyncio.gather(*waiters), 1)
    assert sorted(woken) == [0, 1, 2]
    assert isinstance(event._anyio_event, LightEvent)
    await asyncio.wait_for(event.wait(), 0.1)  # set already: at once


async def test_a_wait_that_times_out_is_a_pool_timeout_and_leaves_no_waiter() -> None:
    event = AsyncEvent()
    with pytest.raises(httpcore2.PoolTimeout):
        await event.wait(timeout=0.01)
    assert not event._anyio_event._waiters
    cancelled = asyncio.ensure_future(event.wait())
    await asyncio.sleep(0)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert not event._anyio_event._waiters
    event.set()
    assert event._anyio_event.is_set()


async def test_a_pool_of_one_connection_serves_two_streams_in_turn(server: ModelServer) -> None:
    server.script([Reply(text="first " * 10, delay=0.01), Reply(text="second " * 10)])
    url = f"{server.openai_url}/chat/completions"
    body = b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
    headers = [(b"content-type", b"application/json")]

    async def stream(pool: httpcore2.AsyncConnectionPool) -> bytes:
        async with pool.stream("POST", url, headers=headers, content=body) as response:
            return b"".join([part async for part in response.aiter_stream()])

    async with httpcore2.AsyncConnectionPool(max_connections=1) as pool:
        first, second = await asyncio.wait_for(asyncio.gather(stream(pool), stream(pool)), 10)
    assert b"first" in first and b"second" in second
