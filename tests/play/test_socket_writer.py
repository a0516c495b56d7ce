"""Frames written straight to daphne's socket (play.socket_writer) and when they may be."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest
from daphne.server import Server
from daphne.ws_protocol import WebSocketFactory
from twisted.internet.testing import StringTransport

from play import frames, relay
from play.relay import Relay
from play.socket_writer import SEND_KEY, frame_header, writer_for


def daphne_socket(**options: Any) -> tuple[Server, Any, StringTransport]:
    """A daphne server's websocket protocol, open, over a transport that keeps what it gets."""
    server = Server(application=None, endpoints=["tcp:port=0:interface=127.0.0.1"])
    server.connections = {}
    factory = WebSocketFactory(server, server="test")
    factory.setProtocolOptions(maxMessagePayloadSize=1 << 20, **options)
    protocol = factory.buildProtocol(("127.0.0.1", 1))
    transport = StringTransport()
    protocol.makeConnection(transport)
    protocol.state = protocol.STATE_OPEN
    server.connections[protocol] = {"connected": True}
    return server, protocol, transport


def scope_of(server: Server, protocol: Any) -> dict[str, Any]:
    return {"type": "websocket", SEND_KEY: functools.partial(server.handle_reply, protocol)}


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 200_000])
def test_the_bytes_are_those_autobahn_sends(size):
    text = ("é" * size)[: size // 2] + "x" * (size - size // 2 * 2)
    server, protocol, transport = daphne_socket()
    protocol.sendMessage(text.encode())
    expected = transport.value()
    transport.clear()
    assert writer_for(scope_of(server, protocol))(text) is True
    assert transport.value() == expected
    assert frame_header(len(text.encode())) == expected[: len(expected) - len(text.encode())]


def test_the_traffic_counts_move_as_autobahn_moves_them():
    server, protocol, _ = daphne_socket()
    protocol.sendMessage(b"abc")
    before = dict(vars(protocol.trafficStats))
    writer_for(scope_of(server, protocol))("abc")
    after = dict(vars(protocol.trafficStats))
    protocol.sendMessage(b"abc")
    assert {k: after[k] - before[k] for k in before} == {
        k: vars(protocol.trafficStats)[k] - after[k] for k in before
    }


def test_anything_but_the_plain_case_is_left_to_the_usual_path():
    server, protocol, transport = daphne_socket()
    write = writer_for(scope_of(server, protocol))
    assert write is not None
    server.connections[protocol]["disconnected"] = True
    assert write("a") is False
    server.connections[protocol].pop("disconnected")
    protocol.send_queue.append((b"x", False))  # autobahn has bytes waiting: they go first
    assert write("a") is False
    protocol.send_queue.clear()
    protocol.state = protocol.STATE_CLOSING
    assert write("a") is False
    assert transport.value() == b""
    server, protocol, _ = daphne_socket(autoFragmentSize=4)
    assert writer_for(scope_of(server, protocol))("abcdefgh") is False


def test_no_writer_without_daphne():
    async def other_server_send(message: dict[str, Any]) -> None:
        return None

    assert writer_for({"type": "websocket"}) is None
    assert writer_for({"type": "websocket", SEND_KEY: other_server_send}) is None
    assert writer_for({"type": "websocket", SEND_KEY: functools.partial(print, 1)}) is None


# --- when the relay writes at once, and when it queues -------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.accept = True

    def __call__(self, text: str) -> bool:
        if self.accept:
            self.texts.append(text)
        return self.accept


async def test_frames_with_nothing_ahead_go_straight_to_the_socket():
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    sub.writer = written = Recorder()
    running = hub_relay.start("s1", 5, lambda turn: asyncio.sleep(0))
    hub_relay.publish_delta(running, "a")
    hub_relay.publish("s1", frames.choices(["x"]))
    assert written.texts == [
        frames.encode(frames.delta(5, "a", 1)),
        frames.encode(frames.choices(["x"])),
    ]
    assert sub.queue.empty()


async def test_nothing_overtakes_a_queued_frame(monkeypatch):
    monkeypatch.setattr(relay, "FRAME_INTERVAL", 3600.0)
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    sub.writer = written = Recorder()
    running = hub_relay.start("s1", 5, lambda turn: asyncio.sleep(0))
    hub_relay.publish_delta(running, "a")  # at once; the next delta waits out the interval
    hub_relay.publish_delta(running, "b")
    hub_relay.publish("s1", frames.choices(["x"]))  # behind the waiting delta, so queued too
    assert written.texts == [frames.encode(frames.delta(5, "a", 1))]
    assert sub.queue.qsize() == 2


async def test_a_frame_waits_while_the_drain_holds_earlier_ones(monkeypatch):
    monkeypatch.setattr(relay, "FRAME_INTERVAL", 0.05)
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    sent: list[str] = []

    async def send(text: str) -> None:
        sent.append(text)

    sub.start(send)
    sub.writer = written = Recorder()
    running = hub_relay.start("s1", 5, lambda turn: asyncio.sleep(0))
    hub_relay.publish_delta(running, "a")  # written
    hub_relay.publish_delta(running, "b")  # queued: within the interval
    await asyncio.sleep(0.01)  # the drain took "b" and waits out the interval with it
    assert sub.queue.empty()
    hub_relay.publish("s1", frames.choices(["x"]))  # must not overtake "b"
    await asyncio.sleep(0.1)
    await sub.stop()
    assert written.texts == [frames.encode(frames.delta(5, "a", 1))]
    assert sent == [frames.encode(frames.delta(5, "b", 2)), frames.encode(frames.choices(["x"]))]


async def test_a_writer_that_cannot_write_leaves_the_frame_queued():
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    sub.writer = written = Recorder()
    written.accept = False
    hub_relay.publish("s1", frames.choices(["x"]))
    assert sub.queue.get_nowait()[1] == frames.encode(frames.choices(["x"]))


async def test_a_drain_runs_only_while_frames_wait_and_stop_ends_it(monkeypatch):
    monkeypatch.setattr(relay, "FRAME_INTERVAL", 0.05)
    hub_relay = Relay()
    sub = await hub_relay.subscribe("s1", None)
    hub_relay.publish("s1", frames.choices(["early"]))  # before start: the history is going out
    sent: list[str] = []
    tasks_before = len(asyncio.all_tasks())

    async def send(text: str) -> None:
        sent.append(text)

    sub.start(send)
    assert len(asyncio.all_tasks()) == tasks_before + 1  # the early frame is waiting
    await asyncio.sleep(0.01)
    assert sent == [frames.encode(frames.choices(["early"]))]
    assert len(asyncio.all_tasks()) == tasks_before  # drained: no task waits on an empty queue
    sub.writer = Recorder()
    running = hub_relay.start("s1", 5, lambda turn: asyncio.sleep(0))
    hub_relay.publish_delta(running, "a")  # written at once
    hub_relay.publish_delta(running, "b")  # within the interval: queued, a drain starts
    hub_relay.publish_delta(running, "c")
    await sub.stop()  # the socket goes before the interval is out: nothing more is sent
    await asyncio.sleep(0.1)
    assert sent == [frames.encode(frames.choices(["early"]))]
    tasks_now = len(asyncio.all_tasks())
    hub_relay.publish_delta(running, "d")
    assert len(asyncio.all_tasks()) == tasks_now  # stopped: a queued frame starts no drain
