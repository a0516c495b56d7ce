"""play.netguard's pinned client against a server that closes kept-alive sockets the way
llama.cpp's does: the next request on such a socket is sent again on a new one."""

from __future__ import annotations

import asyncio

import httpx2
import pytest

from play.netguard import pinned_client


async def test_a_kept_alive_socket_closed_under_the_next_request_is_retried_on_a_new_one():
    connections = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(2)  # the body "{}"
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")  # the next request on this socket: hang up on it
        writer.close()

    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions"
    client = pinned_client(allow_private=True, timeout=5)
    try:
        first = await client.post(url, content=b"{}")
        second = await client.post(url, content=b"{}")
    finally:
        await client.aclose()
        server.close()
    assert (first.status_code, second.status_code) == (200, 200)
    assert second.text == "ok"
    assert connections == 2  # the kept-alive one, closed under the second request; its retry


async def test_a_server_that_never_answers_still_fails():
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.close()

    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/"
    client = pinned_client(allow_private=True, timeout=5)
    try:
        with pytest.raises(httpx2.RemoteProtocolError):
            await client.post(url, content=b"{}")
    finally:
        await client.aclose()
        server.close()
