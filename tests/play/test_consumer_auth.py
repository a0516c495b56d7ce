"""The play websocket and the account: logging out closes sockets, and the Origin check is strict.

Everything goes through the real ASGI stack (config.asgi) with the in-memory channel layer.
"""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.contrib.sessions.backends.base import SessionBase
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from django.urls import reverse

from config.asgi import application
from play.consumers import CLOSE_SIGNED_OUT
from play.sessions import start_session
from tests.play.conftest import guest_store

pytestmark = pytest.mark.django_db(transaction=True)

SIGNED_OUT = {"type": "websocket.close", "code": CLOSE_SIGNED_OUT}


@sync_to_async
def signed_in(user: Any) -> tuple[Client, str]:
    browser = Client()
    browser.force_login(user)
    return browser, f"sessionid={browser.cookies['sessionid'].value}"


async def open_socket(
    session_id: Any,
    cookie: str = "",
    origin: str | None = "http://testserver",
    host: str = "testserver",
    scheme: str | None = None,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> tuple[WebsocketCommunicator, bool]:
    headers = [(b"host", host.encode())] + (extra or [])
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    ws = WebsocketCommunicator(application, f"/ws/play/{session_id}/", headers=headers)
    if scheme:
        ws.scope["scheme"] = scheme
    connected, _ = await ws.connect()
    return ws, connected


async def open_history(session_id: Any, cookie: str, **kwargs: Any) -> WebsocketCommunicator:
    """A socket that got its history; whatever else the join sent is drained."""
    ws, connected = await open_socket(session_id, cookie, **kwargs)
    assert connected
    assert json.loads(await ws.receive_from(5))["type"] == "history"
    while not await ws.receive_nothing(0.1):
        await ws.receive_output()
    return ws


# --- logging out -----------------------------------------------------------------------------


async def test_logging_out_closes_every_socket_of_that_user_and_no_other(
    alice, bob, version, play_session
):
    browser, cookie = await signed_in(alice)
    _other_browser, other_cookie = await signed_in(alice)
    _bobs_browser, bobs_cookie = await signed_in(bob)
    store = await sync_to_async(guest_store)()
    guest_session = await sync_to_async(start_session)(
        None, version, mode="offline", guest_key=store.session_key
    )
    bobs_session = await sync_to_async(start_session)(bob, version, mode="offline")
    here = await open_history(play_session.pk, cookie)
    elsewhere = await open_history(play_session.pk, other_cookie)
    bobs = await open_history(bobs_session.pk, bobs_cookie)
    guests = await open_history(guest_session.pk, f"sessionid={store.session_key}")

    response = await sync_to_async(browser.post)(reverse("logout"))

    assert response.status_code == 302
    assert await here.receive_output(5) == SIGNED_OUT
    assert await elsewhere.receive_output(5) == SIGNED_OUT
    assert await bobs.receive_nothing(0.3)
    assert await guests.receive_nothing(0.1)
    await guests.send_to(text_data=json.dumps({"type": "sync"}))
    assert json.loads(await guests.receive_from(5))["type"] == "history"
    for ws in (here, elsewhere, bobs, guests):
        await ws.disconnect()


async def test_a_connected_socket_keeps_no_user_or_session_object(alice, play_session):
    """Both are read at connect (the player, the sign-out groups), then let go."""
    _, cookie = await signed_in(alice)
    ws = await open_history(play_session.pk, cookie)
    gc.collect()
    users = [o for o in gc.get_objects() if isinstance(o, User) and o.pk == alice.pk]
    stores = [o for o in gc.get_objects() if isinstance(o, SessionBase)]
    assert [u for u in users if u is not alice] == []
    assert stores == []
    await ws.send_json_to({"type": "sync"})  # the socket still acts for alice
    assert json.loads(await ws.receive_from(5))["type"] == "history"
    await ws.disconnect()


async def test_a_closed_socket_can_not_come_back_with_the_old_cookie(alice, play_session):
    browser, cookie = await signed_in(alice)
    ws = await open_history(play_session.pk, cookie)
    await sync_to_async(browser.post)(reverse("logout"))
    assert await ws.receive_output(5) == SIGNED_OUT
    await ws.disconnect()
    again, connected = await open_socket(play_session.pk, cookie)
    assert connected
    assert await again.receive_output(5) == {"type": "websocket.close", "code": 4403}


async def test_a_flushed_session_closes_its_sockets_without_a_logout(alice, play_session):
    _browser, cookie = await signed_in(alice)
    _other, other_cookie = await signed_in(alice)
    flushed = await open_history(play_session.pk, cookie)
    kept = await open_history(play_session.pk, other_cookie)

    await sync_to_async(SessionStore(session_key=cookie.removeprefix("sessionid=")).flush)()

    assert await flushed.receive_output(5) == SIGNED_OUT
    assert await kept.receive_nothing(0.3)
    await flushed.disconnect()
    await kept.disconnect()


async def test_a_guest_whose_browser_session_ends_is_not_told_to_sign_out(version):
    store = await sync_to_async(guest_store)()
    session = await sync_to_async(start_session)(
        None, version, mode="offline", guest_key=store.session_key
    )
    ws = await open_history(session.pk, f"sessionid={store.session_key}")
    await sync_to_async(store.flush)()
    assert await ws.receive_nothing(0.3)
    await ws.disconnect()


# --- the Origin check ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        ("http://evil:8000", "testserver:8000", None),  # another host
        ("https://testserver:8000", "testserver:8000", None),  # https page, ws socket
        ("http://testserver:8000", "testserver:8000", "wss"),  # http page, wss socket
        ("http://testserver:8001", "testserver:8000", None),  # another port
        ("http://testserver:8000", "testserver", None),  # a port where the socket has none
        ("http://testserver", "testserver:8000", None),
        ("http://evil", "evil", None),  # the Host is not an allowed host
        ("null", "testserver", None),  # a sandboxed frame
        ("http://testserver/path", "testserver", None),
        (None, "testserver", None),  # no Origin at all
    ],
)
async def test_a_socket_from_another_origin_is_refused(alice, play_session, origin, host, scheme):
    _browser, cookie = await signed_in(alice)
    ws, connected = await open_socket(play_session.pk, cookie, origin, host, scheme)
    assert not connected
    await ws.disconnect()


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        ("http://testserver", "testserver", None),
        ("http://testserver:8000", "testserver:8000", "ws"),
        ("https://testserver", "testserver", "wss"),
        ("https://testserver:8443", "testserver:8443", "wss"),
        ("http://localhost:8000", "localhost:8000", None),
        ("http://[::1]:8000", "[::1]:8000", None),
    ],
)
async def test_a_socket_from_its_own_scheme_host_and_port_is_let_in(
    alice, play_session, origin, host, scheme
):
    _browser, cookie = await signed_in(alice)
    ws = await open_history(play_session.pk, cookie, origin=origin, host=host, scheme=scheme)
    await ws.disconnect()


async def test_behind_a_trusted_tls_proxy_the_forwarded_scheme_counts(
    alice, play_session, settings
):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    _browser, cookie = await signed_in(alice)
    https = [(b"x-forwarded-proto", b"https")]
    ws = await open_history(play_session.pk, cookie, origin="https://testserver", extra=https)
    await ws.disconnect()
    plain, connected = await open_socket(play_session.pk, cookie, "http://testserver", extra=https)
    assert not connected
    await plain.disconnect()


async def test_csrf_trusted_origins_are_let_in_exactly(alice, play_session, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://app.example.com", "https://*.fabula.test"]
    _browser, cookie = await signed_in(alice)
    for origin in ("https://app.example.com", "https://eu.fabula.test"):
        ws = await open_history(play_session.pk, cookie, origin=origin)
        await ws.disconnect()
    for origin in ("http://app.example.com", "https://app.example.com:444", "https://fabula.evil"):
        ws, connected = await open_socket(play_session.pk, cookie, origin)
        assert not connected
        await ws.disconnect()
