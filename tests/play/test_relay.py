"""Fan-out of a turn's frames (play.relay): local queues at once, the group coalesced."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.layers import get_channel_layer

from play import frames, relay
from play.relay import PROCESS_ID, Relay, Subscription, coalesce_deltas, group_name


@pytest.fixture
def fanout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend other processes listen, over the in-memory layer."""
    monkeypatch.setattr(relay, "fanout_enabled", lambda: True)


async def drain(channel: str) -> list[dict[str, Any]]:
    layer = get_channel_layer()
    out = []
    while True:
        try:
            out.append(await asyncio.wait_for(layer.receive(channel), 0.5))
        except TimeoutError:
            return out


async def test_local_subscribers_get_every_delta_at_once():
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    running = hub_relay.start("s1", 5, lambda turn: asyncio.sleep(0))
    for word in ("a", "b", "c"):
        hub_relay.publish_delta(running, word)
    got = [sub.queue.get_nowait()[1] for _ in range(3)]
    assert got == [frames.encode(frames.delta(5, w, i)) for i, w in enumerate("abc", 1)]
    assert running.snapshot() == {"message_id": 5, "text": "abc", "seq": 3}


async def test_a_backlog_of_deltas_is_merged_for_a_slow_socket():
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    running = hub_relay.start("s1", 5, lambda turn: asyncio.sleep(0))
    hub_relay.publish_delta(running, "a")
    assert await sub.next_texts() == [frames.encode(frames.delta(5, "a", 1))]
    for word in ("b", "c", "d"):
        hub_relay.publish_delta(running, word)
    hub_relay.publish("s1", frames.choices(["x"]))
    hub_relay.publish_delta(running, "e")
    assert await sub.next_texts() == [
        frames.encode(frames.delta(5, "bcd", 4, 2)),
        frames.encode(frames.choices(["x"])),
        frames.encode(frames.delta(5, "e", 5)),
    ]


async def test_a_delta_after_a_quiet_spell_goes_out_without_waiting(monkeypatch):
    monkeypatch.setattr(relay, "FRAME_INTERVAL", 3600.0)  # a wait would outlast the test
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    running = hub_relay.start("s1", 5, lambda turn: asyncio.sleep(0))
    hub_relay.publish_delta(running, "a")

    assert await asyncio.wait_for(sub.next_texts(), 5) == [frames.encode(frames.delta(5, "a", 1))]


async def test_deltas_close_together_go_out_as_one_frame_per_interval(monkeypatch):
    monkeypatch.setattr(relay, "FRAME_INTERVAL", 0.05)
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    running = hub_relay.start("s1", 5, lambda turn: asyncio.sleep(0))
    sent: list[dict[str, Any]] = []

    async def socket() -> None:
        while not sent or sent[-1]["type"] != "message_done":
            sent.extend(_json(t) for t in await sub.next_texts())

    reader = asyncio.ensure_future(socket())
    for i in range(100):  # a fast model: a token every 2 ms for 0.2 s
        hub_relay.publish_delta(running, f"t{i} ")
        await asyncio.sleep(0.002)
    hub_relay.publish("s1", frames.message_done({"id": 5, "role": "assistant"}))
    await asyncio.wait_for(reader, 5)

    deltas = [f for f in sent if f["type"] == "delta"]
    assert len(deltas) < 50
    assert "".join(d["text"] for d in deltas) == "".join(f"t{i} " for i in range(100))
    assert [d["first_seq"] for d in deltas] == [1] + [d["seq"] + 1 for d in deltas[:-1]]


def _json(text: str) -> dict[str, Any]:
    import json

    frame: dict[str, Any] = json.loads(text)
    return frame


async def turn_with_a_remote_listener() -> tuple[Relay, Any, str]:
    """A relay with a local socket on session "s1" (it keeps the hub alive), a channel in the
    session's group standing for another process's socket, and a turn running."""
    hub_relay = Relay()
    layer = get_channel_layer()
    listener = await layer.new_channel()
    await layer.group_add(group_name("s1"), listener)
    await hub_relay.subscribe("s1", None)
    running = hub_relay.start("s1", 9, lambda turn: asyncio.sleep(10))
    return hub_relay, running, listener


async def test_the_group_gets_deltas_coalesced_at_most_ten_times_a_second(fanout):
    hub_relay, running, listener = await turn_with_a_remote_listener()
    hub_relay.hubs["s1"].pump.listeners_changed(True)  # as the presence watcher would
    loop = asyncio.get_running_loop()
    started = loop.time()
    for i in range(100):
        hub_relay.publish_delta(running, f"t{i} ")
        await asyncio.sleep(0.005)
    hub_relay.publish("s1", frames.message_done({"id": 9, "role": "assistant"}))
    elapsed = loop.time() - started
    messages = await drain(listener)
    batches = [f for m in messages for f in m["frames"]]
    deltas = [f for f in batches if f["type"] == "delta"]
    assert len(messages) <= elapsed / relay.COALESCE_INTERVAL + 2
    assert len(deltas) < 100
    assert "".join(d["text"] for d in deltas) == "".join(f"t{i} " for i in range(100))
    assert [d["first_seq"] for d in deltas] == [1] + [d["seq"] + 1 for d in deltas[:-1]]
    assert deltas[-1]["seq"] == 100
    assert batches[-1]["type"] == "message_done"
    assert all(m["origin"] == PROCESS_ID for m in messages)
    running.task.cancel()


async def test_without_remote_listeners_deltas_wait_and_go_out_with_the_turns_end(
    fanout, monkeypatch
):
    monkeypatch.setattr(relay, "PRESENCE_INTERVAL", 60)  # the watcher stays asleep
    hub_relay, running, listener = await turn_with_a_remote_listener()
    local = await hub_relay.subscribe("s1", None)
    for i in range(30):
        hub_relay.publish_delta(running, f"t{i} ")
        await asyncio.sleep(0.01)
    assert await drain(listener) == []
    # Held merged as they came: one frame, however long the reply, not one per token.
    assert len(hub_relay.hubs["s1"].pump.pending) == 1
    # The socket here got each delta as it was published; merging changed none of them.
    seen = [local.queue.get_nowait()[0] for _ in range(30)]
    assert [(f["text"], f["seq"]) for f in seen] == [(f"t{i} ", i + 1) for i in range(30)]
    hub_relay.publish("s1", frames.message_done({"id": 9, "role": "assistant"}))
    [message] = await drain(listener)
    assert [f["type"] for f in message["frames"]] == ["delta", "message_done"]
    assert (message["frames"][0]["first_seq"], message["frames"][0]["seq"]) == (1, 30)
    running.task.cancel()


async def test_waiting_deltas_share_the_turns_text_and_survive_its_replacement(fanout, monkeypatch):
    """With nobody listening elsewhere, the deltas wait as a span of the running turn's own
    string (no second copy of the reply); a follow-up that replaces the text and starts the
    next message leaves what waits, and what goes out, exactly as it was published."""
    monkeypatch.setattr(relay, "PRESENCE_INTERVAL", 60)  # the watcher stays asleep
    hub_relay, running, listener = await turn_with_a_remote_listener()
    pump = hub_relay.hubs["s1"].pump
    running.text = "Before: "  # a continued reply starts from its earlier text
    for i in range(20):
        hub_relay.publish_delta(running, f"t{i} ")
    [span] = pump.pending
    assert span.text is running.text  # the same string object, not a copy
    running.message_id, running.text, running.seq = 10, "", 0  # the next generation
    hub_relay.publish_delta(running, "Two")
    hub_relay.publish_delta(running, " begins")
    hub_relay.publish("s1", frames.message_done({"id": 10, "role": "assistant"}))
    [message] = await drain(listener)
    deltas = [
        (f["message_id"], f["text"], f["first_seq"], f["seq"])
        for f in message["frames"]
        if f["type"] == "delta"
    ]
    assert deltas == [(9, "".join(f"t{i} " for i in range(20)), 1, 20), (10, "Two begins", 1, 2)]
    assert not pump.pending
    running.task.cancel()


async def test_a_delta_that_is_not_the_running_text_waits_as_a_copy(fanout, monkeypatch):
    monkeypatch.setattr(relay, "PRESENCE_INTERVAL", 60)
    hub_relay, running, listener = await turn_with_a_remote_listener()
    hub_relay.publish_delta(running, "one ")
    hub_relay.publish("s1", frames.delta(9, "two ", 2))  # not through publish_delta
    hub_relay.publish("s1", frames.delta(9, "three", 3))
    hub_relay.publish("s1", frames.message_done({"id": 9, "role": "assistant"}))
    [message] = await drain(listener)
    deltas = [(f["text"], f["first_seq"], f["seq"]) for f in message["frames"][:-1]]
    assert deltas == [("one ", 1, 1), ("two three", 2, 3)]
    running.task.cancel()


async def test_frames_published_together_go_as_one_message_in_order(fanout):
    """A tick already queued must not send the deltas pending when it runs ahead of a frame
    queued after it: those deltas came after that frame (here, the next reply's first)."""
    hub_relay, running, listener = await turn_with_a_remote_listener()
    pump = hub_relay.hubs["s1"].pump
    pump.listeners_changed(True)
    await asyncio.sleep(0.01)  # the pump waits for its next item

    hub_relay.publish_delta(running, "end of one. ")
    pump._due()  # the coalescing timer fires: a tick is queued
    hub_relay.publish("s1", frames.message_done({"id": 9, "role": "assistant"}))
    running.message_id, running.seq = 10, 0
    hub_relay.publish("s1", frames.message_start({"id": 10, "role": "assistant"}))
    hub_relay.publish_delta(running, "Two begins")  # pending when the pump gets to the tick

    messages = await drain(listener)
    sent = [
        (f["type"], f.get("message_id") or f["message"]["id"])
        for message in messages
        for f in message["frames"]
    ]
    assert sent == [("delta", 9), ("message_done", 9), ("message_start", 10), ("delta", 10)]
    assert len(messages[0]["frames"]) == 3  # what was published together went as one message
    running.task.cancel()


async def test_a_socket_ignores_its_own_process_and_what_it_has_seen():
    sub = Subscription("s1", "chan")
    own = {"origin": PROCESS_ID, "frames": [frames.delta(1, "x", 1)]}
    assert sub.remote_frames(own) == []
    sub.joined_at({"message_id": 1, "text": "abc", "seq": 3})
    other = {
        "origin": "elsewhere",
        "frames": [frames.delta(1, "abc", 3, 1), frames.delta(1, "de", 5, 4)],
    }
    assert sub.remote_frames(other) == [frames.encode(frames.delta(1, "de", 5, 4))]
    restart = {"origin": "elsewhere", "frames": [frames.message_start({"id": 1})]}
    assert len(sub.remote_frames(restart)) == 1
    again = {"origin": "elsewhere", "frames": [frames.delta(1, "f", 1)]}
    assert len(sub.remote_frames(again)) == 1


def test_coalescing_keeps_messages_and_gaps_apart():
    merged = coalesce_deltas(
        [
            frames.delta(1, "a", 1),
            frames.delta(1, "b", 2),
            frames.delta(2, "c", 1),
            frames.delta(2, "e", 3),
        ]
    )
    assert [(d["message_id"], d["text"], d["first_seq"], d["seq"]) for d in merged] == [
        (1, "ab", 1, 2),
        (2, "c", 1, 1),
        (2, "e", 3, 3),
    ]


async def test_a_turn_outlives_its_subscribers_and_the_hub_goes_when_idle():
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    release = asyncio.Event()
    running = hub_relay.start("s1", 1, lambda turn: release.wait())
    await hub_relay.unsubscribe(sub)
    assert hub_relay.running("s1") is running
    release.set()
    await running.task
    assert "s1" not in hub_relay.hubs


async def test_stop_reaches_the_running_turn():
    hub_relay = Relay()
    stopped = []
    release = asyncio.Event()
    running = hub_relay.start("s1", 1, lambda turn: release.wait())
    running.on_stop.append(lambda: stopped.append(True))
    running.on_stop.append(release.set)
    assert await hub_relay.request_stop("s1")
    await running.task
    assert stopped == [True]
    assert not await hub_relay.request_stop("s1")
