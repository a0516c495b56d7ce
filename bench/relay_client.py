"""The relay bench's websocket client: RFC 6455 over a bare asyncio protocol.

The 500 clients share the two cores with the daphnes they measure. Through the ``websockets``
library they took 29 % of a core at 500 sessions (a task wake-up and a frame assembler per
frame); here each TCP read is parsed at once, and its frames reach the reader as one batch.
Only what the bench needs: text frames, pings answered, a close ends the socket.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from urllib.parse import urlparse


class ClosedError(ConnectionError):
    pass


class _Frames(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.head: bytes | None = None  # the handshake's response, once read
        self.texts: list[str] = []
        self.waiter: asyncio.Future[None] | None = None
        self.closed: BaseException | None = None
        self.parts: list[bytes] = []  # a fragmented message's frames so far

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if self.head is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            self.head = bytes(self.buffer[:end])
            del self.buffer[: end + 4]
        self._parse()
        self._wake()

    def _parse(self) -> None:
        buffer = self.buffer
        at = 0
        while len(buffer) - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            size, start = second & 0x7F, at + 2
            if size == 126:
                if len(buffer) - at < 4:
                    break
                size, start = struct.unpack_from("!H", buffer, at + 2)[0], at + 4
            elif size == 127:
                if len(buffer) - at < 10:
                    break
                size, start = struct.unpack_from("!Q", buffer, at + 2)[0], at + 10
            if len(buffer) < start + size:
                break
            payload = bytes(buffer[start : start + size])
            at = start + size
            self._frame(first & 0x0F, bool(first & 0x80), payload)
        del buffer[:at]

    def _frame(self, opcode: int, fin: bool, payload: bytes) -> None:
        if opcode in (0, 1, 2):
            self.parts.append(payload)
            if fin:
                message, self.parts = b"".join(self.parts), []
                self.texts.append(message.decode())
        elif opcode == 9:  # ping
            self.send(10, payload)
        elif opcode == 8:
            self.closed = ClosedError(f"closed by the server: {payload[:2].hex()}")
            if self.transport is not None:
                self.transport.close()

    def send(self, opcode: int, payload: bytes) -> None:
        """A client frame: masked, as RFC 6455 requires."""
        size = len(payload)
        if size <= 125:
            header = bytes((0x80 | opcode, 0x80 | size))
        elif size <= 0xFFFF:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        mask = os.urandom(4)
        key = int.from_bytes((mask * (size // 4 + 1))[:size], "big")
        masked = (int.from_bytes(payload, "big") ^ key).to_bytes(size, "big")
        assert self.transport is not None
        self.transport.write(header + mask + masked)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = self.closed or exc or ClosedError("the connection closed")
        self._wake()

    def _wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)


class Client:
    """One websocket: ``recv_batch`` returns every text frame that has arrived, waiting for one."""

    def __init__(self, protocol: _Frames) -> None:
        self.protocol = protocol

    async def recv_batch(self) -> list[str]:
        protocol = self.protocol
        while not protocol.texts:
            if protocol.closed is not None:
                raise protocol.closed
            protocol.waiter = asyncio.get_running_loop().create_future()
            await protocol.waiter
        texts, protocol.texts = protocol.texts, []
        return texts

    async def send(self, text: str) -> None:
        self.protocol.send(1, text.encode())

    async def close(self) -> None:
        if self.protocol.transport is not None and not self.protocol.transport.is_closing():
            self.protocol.send(8, struct.pack("!H", 1000))
            self.protocol.transport.close()


async def connect(url: str, headers: dict[str, str]) -> Client:
    """Open ``url`` (ws://host:port/path) with ``headers``; raises unless it answers 101."""
    parts = urlparse(url)
    loop = asyncio.get_running_loop()
    _, protocol = await loop.create_connection(_Frames, parts.hostname, parts.port)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {parts.path or '/'} HTTP/1.1",
        f"Host: {parts.netloc}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    assert protocol.transport is not None
    protocol.transport.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    while protocol.head is None:
        if protocol.closed is not None:
            raise protocol.closed
        protocol.waiter = loop.create_future()
        await protocol.waiter
    status = protocol.head.split(b"\r\n", 1)[0]
    if b" 101 " not in status + b" ":
        protocol.transport.close()
        raise ClosedError(f"handshake refused: {status.decode('latin-1')}")
    return Client(protocol)
