"""A turn's frames written straight to daphne's websocket, from the turn's own task.

Through Channels, every token frame took a wake-up of the socket's forwarding task, then the
consumer's ``send``, the session middleware's wrapper, daphne's ``handle_reply`` and autobahn's
``sendMessage``/``sendFrame``/``sendData`` (the last formats a debug line per frame, logged or
not): 18 % of a play process's CPU at 500 streaming sessions (bench/relay.py under py-spy). A
writer from ``writer_for`` frames the text itself and hands it to the socket's transport in one
call. It writes only in the plain case (socket open, no compression, nothing queued in
autobahn); anything else, or any server but daphne, takes the usual path, so nothing is lost.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from typing import Any

Writer = Callable[[str], bool]
SEND_KEY = "fabula.send"  # the server's own ``send`` in a websocket's scope (SocketGate)


def writer_for(scope: dict[str, Any]) -> Writer | None:
    """A synchronous writer for the socket of ``scope``, or None when it is not daphne's."""
    send = scope.get(SEND_KEY)
    if not isinstance(send, functools.partial) or len(send.args) != 1:
        return None
    server = getattr(send.func, "__self__", None)
    protocol = send.args[0]
    connections = getattr(server, "connections", None)
    if not isinstance(connections, dict) or not hasattr(protocol, "trafficStats"):
        return None
    return functools.partial(_write, connections, protocol)


def _write(connections: dict[Any, dict[str, Any]], protocol: Any, text: str) -> bool:
    """Send ``text`` as one websocket text frame; False (nothing sent) if not the plain case."""
    connection = connections.get(protocol)
    if (
        connection is None
        or connection.get("disconnected")
        or protocol.state != protocol.STATE_OPEN
        or protocol._perMessageCompress is not None
        or protocol.send_queue
        or protocol.trackedTimings
        or protocol.logFrames
        or protocol.logOctets
        or protocol.autoFragmentSize
        or protocol.maskServerFrames
    ):
        return False
    payload = text.encode()
    size = len(payload)
    if 0 < protocol.maxMessagePayloadSize < size:
        return False  # autobahn refuses it, and says so
    stats = protocol.trafficStats
    stats.outgoingWebSocketMessages += 1
    stats.outgoingWebSocketFrames += 1
    stats.outgoingOctetsAppLevel += size
    stats.outgoingOctetsWebSocketLevel += size
    data = frame_header(size) + payload
    stats.outgoingOctetsWireLevel += len(data)
    protocol.transport.write(data)
    return True


def frame_header(size: int) -> bytes:
    """An unmasked, final text frame's header (RFC 6455 §5.2) for a payload of ``size``."""
    if size <= 125:
        return bytes((0x81, size))
    if size <= 0xFFFF:
        return struct.pack("!BBH", 0x81, 126, size)
    return struct.pack("!BBQ", 0x81, 127, size)
