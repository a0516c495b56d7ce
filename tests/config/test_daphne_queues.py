"""Daphne's per-connection input queue is play.frame_queue's (config.daphne_queues).

The websocket and HTTP suites that run real daphne processes (tests/integration, tests/browser)
go through the patched method; here: it is applied to the daphne installed, and what the
application reads is what daphne put, in order, with a disconnect last.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from daphne.server import Server

from config import daphne_queues
from play.frame_queue import FrameQueue


def patched() -> None:
    if not daphne_queues.install():
        pytest.skip(
            "the installed daphne's Server.create_application is not the one "
            "config/daphne_queues.py was written for: its own asyncio.Queue is kept"
        )


def test_install_is_idempotent() -> None:
    patched()
    assert daphne_queues.install()
    assert getattr(Server.create_application, "light_queue", False)


async def test_the_application_reads_what_daphne_put_in_order() -> None:
    patched()
    received: list[dict[str, Any]] = []
    scopes: list[dict[str, Any]] = []

    async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
        scopes.append(scope)
        while True:
            message = await receive()
            received.append(message)
            if message["type"] == "websocket.disconnect":
                return

    server = Server.__new__(Server)  # only what create_application reads
    server.application = application
    protocol = object()
    server.connections = {protocol: {}}
    queue = server.create_application(protocol, {"type": "websocket"})
    assert isinstance(queue, FrameQueue)
    queue.put_nowait({"type": "websocket.connect"})
    for n in range(3):
        queue.put_nowait({"type": "websocket.receive", "text": str(n)})
    queue.put_nowait({"type": "websocket.disconnect", "code": 1000})
    await asyncio.wait_for(server.connections[protocol]["application_instance"], 2)
    assert [m.get("text") for m in received] == [None, "0", "1", "2", None]
    assert received[-1]["type"] == "websocket.disconnect"
    assert scopes[0]["asgi"] == {"version": "3.0"}


def test_a_protocol_gone_before_the_app_starts_gets_no_queue() -> None:
    patched()

    class Vanishing(dict):  # the connection is dropped while the application is built
        def __contains__(self, key: object) -> bool:
            return False

        def __getitem__(self, key: Any) -> Any:
            return {}

    server = Server.__new__(Server)
    server.connections = Vanishing()

    def application(**_: Any) -> Any:
        return None

    server.application = application
    assert server.create_application(object(), {"type": "websocket"}) is None
