"""The model connection's socket on asyncio itself, under the SDKs' HTTP client (httpcore).

A streamed reply arrives as one small TCP segment per token, and httpcore's default backend
(anyio) pays for each read a cancel scope, a timeout scope, and a pause then a resume of the
socket's reading (two epoll calls): at 500 streams that was a fifth of a play process's CPU
(bench/relay.py under py-spy). Here a protocol keeps what arrives in a buffer and a read takes
it, waiting (with its timeout) only when the buffer is empty; reading is paused only when a
slow reader lets more than ``HIGH_WATER`` bytes pile up. TLS goes through the loop's own
``start_tls``. Errors map to httpcore's, as its backends do.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2
from httpcore2 import AsyncNetworkBackend, AsyncNetworkStream

HIGH_WATER = 256 * 1024  # bytes buffered before the socket's reading is paused
LOW_WATER = 64 * 1024


class _Buffered(asyncio.Protocol):
    """What arrived and has not been read yet; the reader's future, when it waits."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.closed = False
        self.error: BaseException | None = None
        self.reader: asyncio.Future[None] | None = None
        self.paused = False
        self.drained: asyncio.Future[None] | None = None
        self.read_until = 0.0  # the waiting read's deadline (loop time)
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > HIGH_WATER and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.closed = True
        self._wake()
        return False  # close our side too: HTTP never half-closes

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed, self.error = True, exc
        if self.timer is not None:
            self.timer.cancel()
        self._wake()
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)

    def pause_writing(self) -> None:
        self.drained = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)
        self.drained = None

    def wait_until(self, deadline: float) -> asyncio.Future[None]:
        """The future a read waits on, failed with TimeoutError if nothing came by ``deadline``.

        One timer per connection, moved forward lazily: an ``asyncio.timeout`` per read
        scheduled and cancelled a timer per token.
        """
        loop = asyncio.get_running_loop()
        self.reader = loop.create_future()
        self.read_until = deadline
        if self.timer is None or self.timer.when() > deadline:
            if self.timer is not None:
                self.timer.cancel()
            self.timer = loop.call_at(deadline, self._expire)
        return self.reader

    def _expire(self) -> None:
        self.timer = None
        if self.reader is None or self.reader.done():
            return  # the next read arms it again
        loop = asyncio.get_running_loop()
        if loop.time() < self.read_until:
            self.timer = loop.call_at(self.read_until, self._expire)
            return
        self.reader.set_exception(TimeoutError())

    def _wake(self) -> None:
        if self.reader is not None and not self.reader.done():
            self.reader.set_result(None)

    def take(self, max_bytes: int) -> bytes:
        data = bytes(self.buffer[:max_bytes])
        del self.buffer[:max_bytes]
        if self.paused and len(self.buffer) < LOW_WATER and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        return data


class AsyncioStream(AsyncNetworkStream):
    def __init__(self, transport: asyncio.Transport, protocol: _Buffered) -> None:
        self._transport = transport
        self._protocol = protocol

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.buffer and not protocol.closed:
            loop = asyncio.get_running_loop()
            if timeout is None:
                reader = protocol.reader = loop.create_future()
            else:
                reader = protocol.wait_until(loop.time() + timeout)
            try:
                await reader
            except TimeoutError:
                raise httpcore2.ReadTimeout("timed out reading the model's reply") from None
            finally:
                protocol.reader = None
        if protocol.buffer:
            return protocol.take(max_bytes)
        if protocol.error is not None:
            raise httpcore2.ReadError(str(protocol.error)) from protocol.error
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        protocol = self._protocol
        if protocol.closed:
            raise httpcore2.WriteError("the connection is closed")
        self._transport.write(buffer)
        if protocol.drained is not None:
            try:
                async with asyncio.timeout(timeout):
                    await protocol.drained
            except TimeoutError:
                raise httpcore2.WriteTimeout("timed out writing the request") from None

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport, self._protocol, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            self._transport.close()
            raise httpcore2.ConnectTimeout("timed out starting TLS") from None
        except (OSError, ssl.SSLError) as exc:
            self._transport.close()
            raise httpcore2.ConnectError(str(exc)) from exc
        assert isinstance(transport, asyncio.Transport)
        self._protocol.transport = transport
        return AsyncioStream(transport, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # an idle pooled connection the server closed, or junk
            return bool(self._protocol.buffer) or self._protocol.closed
        names = {"ssl_object": "ssl_object", "client_addr": "sockname", "server_addr": "peername"}
        if info in names:
            return self._transport.get_extra_info(names[info])
        if info == "socket":
            return self._transport.get_extra_info("socket")
        return None


class AsyncioBackend(AsyncNetworkBackend):
    """httpcore's network backend for the model connections (see the module's docstring)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address else None
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_connection(
                    _Buffered, host, port, local_addr=local
                )
        except TimeoutError:
            raise httpcore2.ConnectTimeout(f"timed out connecting to {host}:{port}") from None
        except OSError as exc:
            raise httpcore2.ConnectError(str(exc)) from exc
        sock: socket.socket | None = transport.get_extra_info("socket")
        for option in socket_options or ():
            if sock is not None:
                sock.setsockopt(*option)
        return AsyncioStream(transport, protocol)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class ShardedPool:
    """Several of httpcore's connection pools, each request to the one with the fewest open.

    httpcore's pool walks all of its connections whenever a request starts or ends: with 500
    replies streaming from the site's model server, that walk took 2.3 ms at every turn's end
    (cProfile of bench/relay.py), and the turns end by the hundred. A shard walks its own
    share. Ties go to the first shard, so a quiet site reuses one connection as before.
    """

    def __init__(self, shards: int, **options: Any) -> None:
        self._pools = [httpcore2.AsyncConnectionPool(**options) for _ in range(shards)]
        self._open = [0] * shards  # requests whose response is not closed yet, per shard

    async def handle_async_request(self, request: httpcore2.Request) -> httpcore2.Response:
        shard = min(range(len(self._pools)), key=self._open.__getitem__)
        self._open[shard] += 1
        try:
            response = await self._pools[shard].handle_async_request(request)
        except BaseException:
            self._open[shard] -= 1
            raise
        response.stream = _Counted(response.stream, self._open, shard)
        # Sent: its reply streams for seconds, and the request's headers (~1 KiB) are not read
        # again (engine.llm.sdk.release_sent_request drops the rest of what it holds).
        request.headers = []
        return response

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()

    async def __aenter__(self) -> ShardedPool:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    @property
    def connections(self) -> list[Any]:
        return [c for pool in self._pools for c in pool.connections]


class _Counted:
    """A response's body that gives its shard's count back when closed."""

    def __init__(self, stream: Any, counts: list[int], shard: int) -> None:
        self._stream, self._counts, self._shard = stream, counts, shard

    def __aiter__(self) -> Any:
        return self._stream.__aiter__()

    async def aclose(self) -> None:
        if self._counts is not None:
            self._counts[self._shard] -= 1
            self._counts = None  # type: ignore[assignment]
        await self._stream.aclose()


STALE_SOCKET = "without sending a response"  # httpcore's words for a socket closed under a request
STALE_RETRIES = 3  # each failed try drops one stale socket from the pool; then a new one is opened


class StaleSocketRetry(httpx2.AsyncHTTPTransport):
    """httpx's transport, where a request whose kept-alive socket was closed under it goes again."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Again, on another socket, when a kept-alive one was closed under the request.

        llama.cpp's server closes an idle kept-alive socket as the next request goes out on it
        (and the pool may hold several); the pool cannot see that coming, and with retries off
        every second call of a master turn failed as "Could not reach the model provider". No
        byte of an answer came, so the server never took the request: sending it again is what
        a browser or urllib3 does too.
        """
        for _ in range(STALE_RETRIES):
            try:
                return await super().handle_async_request(request)
            except httpx2.RemoteProtocolError as exc:
                if STALE_SOCKET not in str(exc):
                    raise  # an answer began: sending again could play the turn twice
        return await super().handle_async_request(request)


class SiteTransport(StaleSocketRetry):
    """httpx's transport for the operator's own model server, on ``AsyncioBackend``."""

    def __init__(self, *, max_connections: int = 1024, shards: int = 16) -> None:
        context = httpx2.create_ssl_context()
        super().__init__(verify=context)
        share = max(1, max_connections // shards)
        self._pool = ShardedPool(  # type: ignore[assignment]
            shards,
            ssl_context=context,
            max_connections=share,
            max_keepalive_connections=share,
            keepalive_expiry=5.0,
            network_backend=AsyncioBackend(),
        )


def site_client(*, timeout: float) -> httpx2.AsyncClient:
    """The HTTP client for the site's own model server (``FABULA_BASE_URL``, the operator's)."""
    return httpx2.AsyncClient(
        transport=SiteTransport(), timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0))
    )
