"""The websockets' one middleware: the Origin check, the server's send, cookies, session, user.

This was five layers: ``KeepServerSend``, the Origin check and Channels' AuthMiddlewareStack
(cookies, session, auth). Each copied the scope and stayed suspended in a coroutine for the
socket's whole life: 10.3-10.7 KiB of Python objects a socket, against 6.9 for this one layer
(bench/socket_stack.py). And the session layer wrapped ``send`` to ask the session, at every
frame, whether it had changed, for a save that only an HTTP response makes (a socket's code
saves a session itself, as Channels documents). One layer does the same work once, when the
socket connects: the consumer gets the same ``cookies``, ``session`` and ``user`` keys.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from channels.auth import get_user
from django.conf import settings
from django.http import parse_cookie

from config.origins import origin_allowed
from play.socket_writer import SEND_KEY


class SocketGate:
    """ASGI middleware for websockets (anything else passes through untouched).

    A socket from another origin is refused (closed before accept: an HTTP 403, see
    config/origins.py). Otherwise the inner application gets one copy of the scope with the
    server's own ``send`` under ``SEND_KEY`` (play/socket_writer.py writes frames through it),
    the cookies, the Django session of the session cookie and its user (AnonymousUser when none).
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.session_store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            return await self.inner(scope, receive, send)
        if not origin_allowed(scope):
            return await _refuse(receive, send)
        cookies = _cookies(scope)
        scope = {
            **scope,
            SEND_KEY: send,
            "cookies": cookies,
            "session": self.session_store(cookies.get(settings.SESSION_COOKIE_NAME)),
        }
        scope["user"] = await get_user(scope)
        return await self.inner(scope, receive, send)


async def _refuse(receive: Any, send: Any) -> None:
    """Close before accept, which the server answers with an HTTP 403.

    Channels' ``WebsocketDenier`` does the same as a consumer, and a consumer first opens a
    channel on the channel layer: a Redis round trip, and a Redis read to cancel, for every
    refused socket, which is the one socket an attacker can open by the thousand.
    """
    if (await receive())["type"] == "websocket.connect":
        await send({"type": "websocket.close"})


def _cookies(scope: dict[str, Any]) -> dict[str, str]:
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            return parse_cookie(value.decode("latin1"))
    return {}
