"""Daphne's writes are sent when made, and nothing is lost or reordered (config.twisted_writes).

A real Twisted server on the asyncio reactor, as daphne runs it, in its own process: it writes
small pieces, one piece far larger than the socket's buffer (the socket takes part of it, Twisted's
buffer the rest), more small pieces behind it, then closes; a slow reader must get every byte
in order.
"""

from __future__ import annotations

import hashlib
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SERVER = textwrap.dedent(
    """
    import sys
    from twisted.internet import asyncioreactor
    asyncioreactor.install()
    from twisted.internet import protocol, reactor, tcp
    from config import twisted_writes

    twisted_writes.install()
    twisted_writes.install()  # twice: still one patch
    assert tcp.Connection.write.sends_at_once

    class Writer(protocol.Protocol):
        def connectionMade(self):
            for i in range(1000):
                self.transport.write(b"small %d;" % i)
            assert not self.transport._tempDataBuffer  # sent, not left for the next iteration
            self.transport.write(bytes(range(256)) * 40_000)  # 10 MB
            assert self.transport._tempDataLen > 0  # what the socket did not take waits
            for i in range(1000):
                self.transport.write(b"after %d;" % i)
            self.transport.loseConnection()

        def connectionLost(self, reason):
            reactor.stop()

    port = reactor.listenTCP(0, protocol.Factory.forProtocol(Writer), interface="127.0.0.1")
    print(port.getHost().port, flush=True)
    reactor.run()
    """
)


def expected() -> bytes:
    small = b"".join(b"small %d;" % i for i in range(1000))
    after = b"".join(b"after %d;" % i for i in range(1000))
    return small + bytes(range(256)) * 40_000 + after


def test_every_byte_arrives_in_order_through_a_full_socket_buffer() -> None:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(server.stdout.readline()) if server.stdout else 0
        received = bytearray()
        with socket.create_connection(("127.0.0.1", port), timeout=20) as client:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
            time.sleep(0.5)  # the server has written everything it could by now
            while chunk := client.recv(65536):
                received += chunk
    finally:
        server.kill()
        server.wait(10)

    assert len(received) == len(expected())
    assert hashlib.sha256(received).digest() == hashlib.sha256(expected()).digest()


def test_the_app_installs_it_in_the_process_that_serves_it() -> None:
    from twisted.internet import tcp

    import config.asgi  # noqa: F401

    assert getattr(tcp.Connection.write, "sends_at_once", False)
