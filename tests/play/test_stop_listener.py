"""Stops from other processes (play.stop_listener): one channel per process, joined per turn."""

from __future__ import annotations

import asyncio

from channels.layers import get_channel_layer

from play.stop_listener import StopListener, control_group_name, stop_message


async def settle(listener: StopListener) -> None:
    """Until the listener's queued joins and leaves have reached the layer."""
    for _ in range(50):
        await asyncio.sleep(0.01)
        state = listener._on_loop()
        if state.channel.done() and state.changes.empty():
            await asyncio.sleep(0.01)
            return


async def send_stop(session_id: str) -> None:
    await get_channel_layer().group_send(
        control_group_name(session_id), stop_message(session_id, "elsewhere")
    )


async def until(condition, seconds: float = 2.0) -> bool:
    for _ in range(int(seconds / 0.01)):
        if condition():
            return True
        await asyncio.sleep(0.01)
    return condition()


async def test_a_stop_reaches_the_joined_session_only():
    stopped: list[str] = []
    listener = StopListener(stopped.append)
    listener.join("s1")
    listener.join("s2")
    await settle(listener)
    await send_stop("s2")
    assert await until(lambda: stopped == ["s2"])
    await send_stop("s3")  # nobody here joined s3
    await asyncio.sleep(0.1)
    assert stopped == ["s2"]


async def test_after_leave_no_stop_arrives_and_a_rejoin_in_between_wins():
    stopped: list[str] = []
    listener = StopListener(stopped.append)
    listener.join("s1")
    listener.leave("s1")
    await settle(listener)
    await send_stop("s1")
    await asyncio.sleep(0.1)
    assert stopped == []
    # A turn ends and the session's next one starts at once: the leave cannot overtake the join.
    listener.join("s1")
    listener.leave("s1")
    listener.join("s1")
    await settle(listener)
    await send_stop("s1")
    assert await until(lambda: stopped == ["s1"])


async def test_every_turn_shares_one_channel():
    listener = StopListener(lambda _: None)
    for n in range(20):
        listener.join(f"s{n}")
    await settle(listener)
    layer = get_channel_layer()
    channel = listener._on_loop().channel.result()
    members = [m for n in range(20) for m in layer.groups.get(control_group_name(f"s{n}"), {})]
    assert members == [channel] * 20
