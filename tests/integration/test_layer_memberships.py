"""Groups outlive a Redis restart (config/layer_memberships.py).

A Redis restarted without its data forgets every group, while the sockets in them stay open; the
layer adds its channels again once it sees the server's new ``run_id``, and a channel that left
its group before the restart is not put back.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Iterator

import pytest

from config import layer_memberships
from config.redis_layer import RedisChannelLayer
from tests.integration.faults import RedisServer


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    server = RedisServer()
    yield server
    server.kill()


async def members(layer: RedisChannelLayer, group: str) -> set[str]:
    connection = layer.connection(layer.consistent_hash(group))
    return {bytes(m).decode() for m in await connection.zrange(layer._group_key(group), 0, -1)}


async def test_a_restarted_redis_gets_the_groups_back_and_a_frame_reaches_the_socket(
    own_redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(layer_memberships, "CHECK_SECONDS", 0.1)
    layer = RedisChannelLayer(hosts=[own_redis.url], prefix=f"t-{secrets.token_hex(3)}")
    group, left = f"g-{secrets.token_hex(3)}", f"h-{secrets.token_hex(3)}"
    socket, gone = await layer.new_channel(), await layer.new_channel()
    await layer.group_add(group, socket)
    await layer.group_add(left, gone)
    await layer.group_discard(left, gone)
    connection = layer.connection(layer.consistent_hash(group))
    await connection.set("canary", "1")
    await asyncio.sleep(0.3)  # the watcher has read the first run_id

    await asyncio.to_thread(own_redis.restart)
    # Redis forgot everything, the group too (not read here: the watcher, checking every 0.1 s,
    # may already have added the socket back)
    assert await connection.get("canary") is None

    for _ in range(100):
        if await members(layer, group):
            break
        await asyncio.sleep(0.05)
    assert await members(layer, group) == {socket}
    assert await members(layer, left) == set()
    await layer.group_send(group, {"type": "play.relay", "frames": []})
    message = await asyncio.wait_for(layer.receive(socket), 5)
    assert message["type"] == "play.relay"
    await layer.close_pools()


def test_a_closing_event_loop_ends_the_watcher_even_mid_command(
    own_redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """redis-py swallows a cancel that lands while a command runs: the watcher, checking every
    10 ms here, must still end when ``asyncio.run`` cancels what is left (it once hung the
    closing loop of a test for two minutes)."""
    monkeypatch.setattr(layer_memberships, "CHECK_SECONDS", 0.01)

    async def a_socket_joins_then_the_loop_closes(pause: float) -> None:
        layer = RedisChannelLayer(hosts=[own_redis.url], prefix=f"t-{secrets.token_hex(3)}")
        await layer.group_add(f"g-{secrets.token_hex(3)}", await layer.new_channel())
        await asyncio.sleep(pause)

    def loops() -> None:
        for n in range(40):
            asyncio.run(a_socket_joins_then_the_loop_closes(n % 7 / 200))

    thread = threading.Thread(target=loops, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "a closing event loop waited for the watcher"
