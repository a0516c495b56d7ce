"""A turn's frames go through Redis only to other processes' sockets (play.relay_fanout).

Two channels_redis layers with their own client prefixes stand for two daphne processes on one
Redis. This process's sockets already got every frame from the hub; a plain ``group_send``
pushed each one through Redis to them as well, a dozen commands per frame for nothing.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from typing import Any

import redis.asyncio

from config.redis_layer import RedisChannelLayer
from play.relay_fanout import group_name, remote_listeners, send_elsewhere


def process_layer() -> RedisChannelLayer:
    return RedisChannelLayer(hosts=[os.environ["REDIS_URL"]], prefix=f"test-{secrets.token_hex(4)}")


async def received(layer: RedisChannelLayer, channel: str, wait: float = 0.5) -> list[Any]:
    out = []
    while True:
        try:
            out.append(await asyncio.wait_for(layer.receive(channel), wait))
        except TimeoutError:
            return out


async def scripts_run(body: Any) -> int:
    """How many scripts Redis ran while ``body()`` ran: ``group_send`` pushes with one."""
    client = redis.asyncio.Redis.from_url(os.environ["REDIS_URL"])

    async def evals() -> int:
        stats = await client.info("commandstats")
        return int(stats.get("cmdstat_eval", {}).get("calls", 0))

    before = await evals()
    await body()
    after = await evals()
    await client.aclose()
    return after - before


async def test_a_frame_reaches_the_other_process_and_skips_this_ones_sockets() -> None:
    here = process_layer()
    there = RedisChannelLayer(hosts=[os.environ["REDIS_URL"]], prefix=here.prefix)
    group = group_name(f"s-{secrets.token_hex(4)}")
    own_socket, other_socket = await here.new_channel(), await there.new_channel()
    await here.group_add(group, own_socket)
    await there.group_add(group, other_socket)

    await send_elsewhere(here, group, {"type": "play.relay", "frames": [{"type": "x"}]})

    [message] = await received(there, other_socket)
    assert message["frames"] == [{"type": "x"}]
    assert await received(here, own_socket) == []


async def test_with_only_this_processs_sockets_nothing_is_pushed() -> None:
    here = process_layer()
    group = group_name(f"s-{secrets.token_hex(4)}")
    own_socket = await here.new_channel()
    await here.group_add(group, own_socket)

    async def send() -> None:
        await send_elsewhere(here, group, {"type": "play.relay", "frames": []})

    async def plain() -> None:
        await here.group_send(group, {"type": "play.relay", "frames": []})

    assert await scripts_run(send) == 0
    assert await received(here, own_socket) == []
    assert await scripts_run(plain) == 1  # what it replaces: a push, then this socket's pops
    assert len(await received(here, own_socket)) == 1


async def test_remote_listeners_tell_other_processes_from_this_one() -> None:
    here = process_layer()
    there = RedisChannelLayer(hosts=[os.environ["REDIS_URL"]], prefix=here.prefix)
    lonely = group_name(f"s-{secrets.token_hex(4)}")
    shared = group_name(f"s-{secrets.token_hex(4)}")
    await here.group_add(lonely, await here.new_channel())
    await here.group_add(shared, await here.new_channel())
    await there.group_add(shared, await there.new_channel())
    from channels.layers import channel_layers

    before = channel_layers.backends.get("default")
    channel_layers.backends["default"] = here  # this process's layer, as get_channel_layer()
    try:
        found = await remote_listeners([lonely, shared])
    finally:
        channel_layers.backends.pop("default", None)
        if before is not None:
            channel_layers.backends["default"] = before

    assert found == {lonely: False, shared: True}
