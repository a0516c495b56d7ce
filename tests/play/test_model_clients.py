"""The model clients (play.netguard's pinned client for users' servers, play.netstream's site
client for the operator's) against a server that closes kept-alive sockets the way llama.cpp's
does: the next request on such a socket is sent again on a new one."""

from __future__ import annotations

import asyncio

import httpx2
import pytest

from play.netguard import pinned_client
from play.netstream import site_client

CLIENTS = [
    pytest.param(lambda: pinned_client(allow_private=True, timeout=5), id="pinned"),
    pytest.param(lambda: site_client(timeout=5), id="site"),
]


@pytest.mark.parametrize("make_client", CLIENTS)
async def test_a_kept_alive_socket_closed_under_the_next_request_is_retried_on_a_new_one(
    make_client,
):
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
    client = make_client()
    try:
        first = await client.post(url, content=b"{}")
        second = await client.post(url, content=b"{}")
    finally:
        await client.aclose()
        server.close()
    assert (first.status_code, second.status_code) == (200, 200)
    assert second.text == "ok"
    assert connections == 2  # the kept-alive one, closed under the second request; its retry


@pytest.mark.parametrize("make_client", CLIENTS)
async def test_a_server_that_never_answers_still_fails(make_client):
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.close()

    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/"
    client = make_client()
    try:
        with pytest.raises(httpx2.RemoteProtocolError):
            await client.post(url, content=b"{}")
    finally:
        await client.aclose()
        server.close()
