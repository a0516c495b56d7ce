"""Daphne's socket writes go out when they are made, not one loop iteration later.

Twisted's TCP transport only buffers a write and asks the reactor to watch the socket for
writability; the next iteration sends it and stops watching. On the asyncio reactor that is two
``epoll_ctl`` calls and a pass through the reactor's dispatch per websocket frame: at 500
streaming sessions about a tenth of a play process's CPU (bench/relay.py under py-spy). Here a
write made while nothing is waiting in the buffer is sent at once, as asyncio's own transports
do; whatever the socket does not take, and every write behind it, takes Twisted's buffered path
unchanged (producers, half-close and errors included).
"""

from __future__ import annotations

from typing import Any


def install() -> None:
    """Patch ``twisted.internet.tcp.Connection.write``; idempotent."""
    from twisted.internet import tcp

    if getattr(tcp.Connection.write, "sends_at_once", False):
        return
    buffered: Any = tcp.Connection.write

    def write(self: Any, data: bytes) -> None:
        if (
            type(data) is bytes
            and data
            and not self.TLS  # startTLS: the bytes go through the TLS layer, as before
            and self.connected
            and not self.disconnecting
            and not self._writeDisconnected
            and not self._tempDataBuffer
            and self.offset == len(self.dataBuffer)
        ):
            try:
                sent = self.socket.send(data)
            except OSError:
                # Not ready, or broken: the buffered path retries, or reports the loss the way
                # Twisted always has.
                sent = 0
            if sent == len(data):
                return
            data = data[sent:]
        buffered(self, data)

    write.sends_at_once = True  # type: ignore[attr-defined]
    tcp.Connection.write = write  # type: ignore[method-assign]
