"""Plain TCP servers for the SSRF tests: one that counts who connects, one that only redirects.

Both run a socket accept loop in a daemon thread (no asyncio, so nothing in them resembles the
code under test). ``bind_pair`` gives two hosts the same port, so a redirect or a rebound DNS
answer can point at the listener with nothing but a different address.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from typing import Any


class Listener:
    """Accepts on ``host:port`` and counts connections; answers each with ``reply`` then closes."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, reply: bytes = b"") -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(64)
        self.sock.settimeout(0.05)
        self.host = host
        self.port: int = self.sock.getsockname()[1]
        self.reply = reply
        self.accepted = 0
        self.received: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"listener-{host}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            with conn:
                self.answer(conn)

    def answer(self, conn: socket.socket) -> None:
        if self.reply:
            with contextlib.suppress(OSError):
                conn.sendall(self.reply)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


class Silent(Listener):
    """Accepts and never says a word until closed (a port that is open but is no model)."""

    def answer(self, conn: socket.socket) -> None:
        self._stop.wait(10)


class Redirector(Listener):
    """An HTTP server that answers every request with ``302 Location: location``."""

    def __init__(self, host: str, port: int, location: str) -> None:
        self.location = location
        super().__init__(host, port)

    def answer(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        data = b""
        with contextlib.suppress(OSError):
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            self.received.append(data)
            conn.sendall(
                b"HTTP/1.1 302 Found\r\nLocation: " + self.location.encode() + b"\r\n"
                b"Content-Length: 0\r\nConnection: close\r\n\r\n"
            )


def bind_pair(first: Callable[[int], Any], second: Callable[[int], Any]) -> tuple[Any, Any]:
    """Two servers on one port (different loopback addresses); retries when the port is taken.

    ``first(0)`` must have a ``port`` and ``close()``; ``second(port)`` raises OSError if taken.
    """
    for _ in range(20):
        one = first(0)
        try:
            return one, second(one.port)
        except OSError:
            one.close()
    raise RuntimeError("no free port pair")
