"""The model connection's asyncio socket (play.netstream) against real loopback servers."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable

import httpcore2
import httpx2
import pytest

from play import netstream
from play.netstream import AsyncioBackend

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def serving(handler: Handler) -> tuple[asyncio.Server, int]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def read_all(stream: httpcore2.AsyncNetworkStream) -> bytes:
    out = b""
    while chunk := await stream.read(65536, timeout=5):
        out += chunk
    return out


async def test_bytes_written_in_many_pieces_are_read_whole_then_the_end() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for i in range(50):
            writer.write(f"token{i} ".encode())
            await writer.drain()
            await asyncio.sleep(0.001)
        writer.close()

    server, port = await serving(handler)
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
    try:
        assert await read_all(stream) == "".join(f"token{i} " for i in range(50)).encode()
        assert stream.get_extra_info("is_readable") is True  # closed: the pool drops it
    finally:
        await stream.aclose()
        server.close()


async def test_a_server_that_says_nothing_times_the_read_out() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)

    server, port = await serving(handler)
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
    try:
        assert stream.get_extra_info("is_readable") is False  # idle and open: reusable
        with pytest.raises(httpcore2.ReadTimeout):
            await stream.read(1024, timeout=0.2)
    finally:
        await stream.aclose()
        server.close()


async def test_each_read_has_its_own_deadline_and_a_stall_after_a_trickle_times_out() -> None:
    """The timer is armed once and moved on lazily: a trickle that lasts several times the read
    timeout, each read waiting for its token, never times out; the stall after it does."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for i in range(8):
            writer.write(f"t{i} ".encode())
            await writer.drain()
            await asyncio.sleep(0.1)
        await asyncio.sleep(30)

    server, port = await serving(handler)
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
    got = b""
    loop = asyncio.get_running_loop()
    try:
        started = loop.time()
        with pytest.raises(httpcore2.ReadTimeout):
            while True:
                got += await stream.read(1024, timeout=0.25)
        waited = loop.time() - started
    finally:
        await stream.aclose()
        server.close()
    assert got == "".join(f"t{i} " for i in range(8)).encode()
    assert waited > 0.9  # the trickle (0.7 s), then the stall's 0.25 s


async def test_a_slow_reader_pauses_the_socket_and_loses_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(netstream, "HIGH_WATER", 4096)
    monkeypatch.setattr(netstream, "LOW_WATER", 1024)
    payload = bytes(range(256)) * 4096  # 1 MiB

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(payload)
        await writer.drain()
        writer.close()

    server, port = await serving(handler)
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
    try:
        await asyncio.sleep(0.2)  # the reader is late: the buffer stops near the high mark
        buffered = len(stream._protocol.buffer)  # type: ignore[attr-defined]
        assert buffered < len(payload)
        assert await read_all(stream) == payload
    finally:
        await stream.aclose()
        server.close()


async def test_nothing_listening_is_a_connect_error() -> None:
    server, port = await serving(lambda r, w: asyncio.sleep(0))
    server.close()
    await server.wait_closed()
    with pytest.raises(httpcore2.ConnectError):
        await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)


@pytest.fixture
async def http_server() -> AsyncIterator[int]:
    """Answers every request on a kept-alive connection with a small chunked body."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await reader.readuntil(b"\r\n\r\n"):
                writer.write(
                    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                    b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server, port = await serving(handler)
    yield port
    server.close()


async def test_the_site_client_speaks_http_and_reuses_its_connection(http_server: int) -> None:
    client = netstream.site_client(timeout=5)
    try:
        for _ in range(3):
            response = await client.get(f"http://127.0.0.1:{http_server}/v1/models")
            assert response.text == "hello world"
        pool = client._transport._pool  # type: ignore[attr-defined]
        assert len(pool.connections) == 1
    finally:
        await client.aclose()
    assert isinstance(client, httpx2.AsyncClient)


async def test_concurrent_streams_spread_over_the_shards_and_come_back(http_server: int) -> None:
    """Each shard's pool walks only its own connections (netstream.ShardedPool)."""
    client = netstream.site_client(timeout=5)
    url = f"http://127.0.0.1:{http_server}/v1/models"
    pool = client._transport._pool  # type: ignore[attr-defined]
    try:
        async with contextlib.AsyncExitStack() as streams:
            responses = [
                await streams.enter_async_context(client.stream("GET", url)) for _ in range(3)
            ]
            assert pool._open[:4] == [1, 1, 1, 0]
            assert [len(shard.connections) for shard in pool._pools[:4]] == [1, 1, 1, 0]
            for response in responses:
                assert await response.aread() == b"hello world"  # read whole: kept alive
        assert sum(pool._open) == 0
        for _ in range(3):
            assert (await client.get(url)).text == "hello world"
        assert len(pool.connections) == 3  # kept alive and reused, no fourth
        with socket.socket() as probe:  # a port nothing listens on
            probe.bind(("127.0.0.1", 0))
            failing = f"http://127.0.0.1:{probe.getsockname()[1]}/v1/models"
        with pytest.raises(httpx2.ConnectError):
            await client.get(failing)
        assert sum(pool._open) == 0
    finally:
        await client.aclose()


async def test_a_sent_request_keeps_no_headers_while_its_reply_streams(http_server: int) -> None:
    """The API key among them: a reply streams for seconds, its request was sent at the start."""
    client = netstream.site_client(timeout=5)
    sent: list[httpcore2.Request] = []
    pool = client._transport._pool  # type: ignore[attr-defined]
    handle = pool.handle_async_request

    async def recording(request: httpcore2.Request) -> httpcore2.Response:
        sent.append(request)
        return await handle(request)

    pool.handle_async_request = recording
    url = f"http://127.0.0.1:{http_server}/v1/models"
    try:
        headers = {"authorization": "Bearer sk-secret"}
        async with client.stream("GET", url, headers=headers) as response:
            assert sent[0].headers == []
            assert await response.aread() == b"hello world"
    finally:
        await client.aclose()
