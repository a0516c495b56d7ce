"""The stall under load, reproduced: a Redis answer that lands late killed the socket's reader.

channels_redis waits for a socket's next message with BZPOPMIN for 5 s, and redis-py reads
every answer with a 5 s socket timeout by default. On a loaded machine the answer of an empty
wait comes back a little after 5 s: the read times out, the consumer's receive loop dies and
its socket stops hearing the session (in bench/relay.py: every delta sent, ``message_done``
never). The settings give the layer a socket timeout well above the wait; a proxy that delays
Redis's answers by a second and a half shows both sides.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from redis.exceptions import TimeoutError as RedisTimeout

from config.redis_layer import RedisChannelLayer

DELAY = 1.5  # what a loaded machine adds to an answer, more or less


@contextlib.asynccontextmanager
async def slow_redis() -> AsyncIterator[str]:
    """A loopback proxy to the real Redis that holds each of its answers for ``DELAY`` s."""
    target = urlsplit(os.environ["REDIS_URL"])
    host, port = target.hostname or "127.0.0.1", target.port or 6379

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float):
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            while data := await reader.read(65536):
                if delay:
                    await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()
        writer.close()

    tasks: set[asyncio.Task[Any]] = set()

    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(host, port)
        tasks.add(asyncio.ensure_future(pipe(client_r, server_w, 0.0)))
        tasks.add(asyncio.ensure_future(pipe(server_r, client_w, DELAY)))

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    proxy_port = server.sockets[0].getsockname()[1]
    try:
        yield f"redis://127.0.0.1:{proxy_port}/{(target.path or '/0').lstrip('/') or 0}"
    finally:
        server.close()
        for task in tasks:
            task.cancel()


def layer_through(url: str, host_options: dict[str, Any]) -> RedisChannelLayer:
    return RedisChannelLayer(hosts=[{**host_options, "address": url}])


async def test_with_the_librarys_defaults_a_late_empty_wait_kills_the_reader() -> None:
    async with slow_redis() as url:
        layer = layer_through(url, {})
        channel = await layer.new_channel()
        with pytest.raises(RedisTimeout):
            await asyncio.wait_for(layer.receive(channel), 30)
        await layer.flush()


async def test_with_the_settings_a_late_empty_wait_is_waited_out_and_the_message_arrives() -> None:
    configured = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]
    options = {k: v for k, v in configured.items() if k != "address"}
    async with slow_redis() as url:
        layer = layer_through(url, options)
        channel = await layer.new_channel()
        receiving = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(5 + DELAY + 1)  # past the first empty wait and its late answer
        assert not receiving.done()
        sender = layer_through(os.environ["REDIS_URL"], options)
        await sender.send(channel, {"type": "play.relay", "frames": [{"type": "message_done"}]})
        message = await asyncio.wait_for(receiving, 30)
        assert message["frames"] == [{"type": "message_done"}]
        await layer.flush()
