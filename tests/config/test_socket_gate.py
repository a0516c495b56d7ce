"""config.socket_gate: the websockets' one middleware gives the consumer what Channels' did."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser, User
from django.test import Client

from config.socket_gate import SocketGate
from play.socket_writer import SEND_KEY

pytestmark = pytest.mark.django_db(transaction=True)


class Inner:
    def __init__(self) -> None:
        self.scopes: list[dict[str, Any]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.scopes.append(scope)


async def send(message: dict[str, Any]) -> None:
    SENT.append(message)


SENT: list[dict[str, Any]] = []


def websocket(*headers: tuple[bytes, bytes]) -> dict[str, Any]:
    return {
        "type": "websocket",
        "path": "/ws/play/1/",
        "scheme": "ws",
        "headers": [(b"host", b"testserver"), (b"origin", b"http://testserver"), *headers],
    }


@sync_to_async
def session_cookie(user: User) -> tuple[bytes, str]:
    browser = Client()
    browser.force_login(user)
    key = browser.cookies["sessionid"].value
    return f"theme=dark; sessionid={key}".encode(), key


async def test_a_signed_in_socket_gets_its_cookies_session_user_and_the_servers_send():
    alice = await User.objects.acreate(username="alice")
    cookie, key = await session_cookie(alice)
    inner = Inner()
    await SocketGate(inner)(websocket((b"cookie", cookie)), None, send)
    (scope,) = inner.scopes
    assert scope["cookies"] == {"theme": "dark", "sessionid": key}
    assert scope["session"].session_key == key
    assert scope["user"] == alice and scope["user"].is_authenticated
    assert scope[SEND_KEY] is send


async def test_a_socket_without_a_session_is_anonymous():
    inner = Inner()
    await SocketGate(inner)(websocket(), None, send)
    (scope,) = inner.scopes
    assert scope["cookies"] == {}
    assert scope["session"].session_key is None
    assert isinstance(scope["user"], AnonymousUser)


async def test_a_forged_session_cookie_is_anonymous():
    inner = Inner()
    await SocketGate(inner)(websocket((b"cookie", b"sessionid=forged0123456789abcdef")), None, send)
    assert isinstance(inner.scopes[0]["user"], AnonymousUser)


async def test_a_socket_from_another_origin_never_reaches_the_consumer():
    inner = Inner()
    scope = websocket()
    scope["headers"][1] = (b"origin", b"http://evil.example")
    arrivals = [{"type": "websocket.connect"}]

    async def receive() -> dict[str, Any]:
        return arrivals.pop(0)

    SENT.clear()
    await SocketGate(inner)(scope, receive, send)
    assert inner.scopes == []
    assert SENT == [{"type": "websocket.close"}]  # before accept: an HTTP 403


async def test_http_passes_through_untouched():
    inner = Inner()
    scope = {"type": "http", "path": "/", "headers": [(b"cookie", b"sessionid=x")]}
    await SocketGate(inner)(scope, None, send)
    assert inner.scopes == [scope] and inner.scopes[0] is scope
