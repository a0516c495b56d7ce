"""A game-master world's secrets reach no one but its creator (issue 32, finding 1).

A canary sits in every secret field of the ``gameMaster`` block (tests/studio/canary_helpers.py
enumerates the schema, so a field added later must be classified, and a secret one planted,
before these tests pass) and in every lorebook entry not tagged ``public``. The world is
published; then a guest and a signed-in player who does not own it each start a session of it
and crawl everything they can reach: every URL route and every API operation of
``/api/openapi.json`` with the ids that exist filled in, the reads and creations a player may
post (a session, a fork, an export), the gallery, the world page and every same-site link from
those pages, and the socket of their session. No canary may come back.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable
from html.parser import HTMLParser
from types import SimpleNamespace
from typing import Any
from urllib.parse import urldefrag, urlsplit

import pytest
from asgiref.sync import async_to_sync
from channels.layers import channel_layers
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import path, reverse

from play import locks, relay
from play.models import Session
from studio.models import WorldVersion
from studio.publishing import publish_world
from studio.worlds import import_world
from tests.studio.canary_helpers import (
    CANARY,
    canaries_in,
    canary_world,
    planted_paths,
    text_paths,
    unclassified_paths,
    unplanted_paths,
)
from tests.studio.test_security import all_routes, fill

MAX_PAGES = 150  # the link-following part of the crawl stops there
SKIPPED = ("/static/", "/media/", "/admin/", "/accounts/logout/", "/i18n/")
_PARAM = re.compile(r"\{(\w+)\}")


@pytest.fixture(autouse=True)
def embedded_play(settings: Any, tmp_path: Any) -> Any:
    """Play in this process with the offline narrator, as tests/play runs it."""
    settings.MEDIA_ROOT = tmp_path
    settings.REDIS_URL = ""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.FABULA_PROVIDER = "offline"
    channel_layers.backends.clear()
    locks.reset_local_locks()
    relay.relay.hubs.clear()
    yield
    channel_layers.backends.clear()
    locks.reset_local_locks()
    relay.relay.hubs.clear()


@pytest.fixture
def canary(alice: Any) -> WorldVersion:
    return publish_world(import_world(alice, canary_world()))


# --- the canary world itself -------------------------------------------------------------------


def check_the_canary_world() -> None:
    """The world covers the schema: every text field classified, every secret one planted."""
    assert unclassified_paths() == set(), "classify these gameMaster fields in canary_helpers"
    assert unplanted_paths(canary_world()) == set(), "plant a canary in these secret fields"
    assert len(text_paths()) > 100 and "npcs[].secret.text" in planted_paths(canary_world())


def every_canary() -> set[str]:
    return canaries_in(json.dumps(canary_world()))


def test_a_remixable_version_exports_its_canaries_to_a_guest(client, alice):
    """With the creator's opt-in the export carries every secret: the canaries are real."""
    version = publish_world(import_world(alice, canary_world()), remixable_secrets=True)
    body = client.get(reverse("export_version", args=[version.pk])).content.decode()
    assert len(every_canary()) > 40
    assert canaries_in(body) == every_canary()


# --- the crawl ---------------------------------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and name in ("href", "src", "hx-get", "data-url", "data-src"):
                self.urls.append(value)
            if value and name == "action" and tag == "form":
                method = dict(attrs).get("method") or "get"
                if method.lower() == "get":
                    self.urls.append(value)


class Crawl:
    """One visitor's crawl: every body it was answered, to look for canaries in."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.bodies: dict[str, str] = {}

    def get(self, url: str, **query: Any) -> Any:
        response = self.client.get(url, query or None)
        self._keep(f"GET {url} {query or ''}", response)
        return response

    def post(self, url: str, data: Any = None, *, json_body: bool = False) -> Any:
        if json_body:
            response = self.client.post(url, json.dumps(data or {}), "application/json")
        else:
            response = self.client.post(url, data or {})
        self._keep(f"POST {url}", response)
        return response

    def _keep(self, key: str, response: Any) -> None:
        if getattr(response, "streaming", False):
            content = b"".join(response.streaming_content)
        else:
            content = response.content
        self.bodies[key] = content.decode("utf-8", "replace")

    def follow(self, starts: Iterable[str]) -> None:
        """A bounded breadth-first crawl of same-site GET links from ``starts``."""
        queue, seen = deque(starts), set()
        while queue and len(seen) < MAX_PAGES:
            url = queue.popleft()
            if url in seen or url.startswith(SKIPPED):
                continue
            seen.add(url)
            response = self.get(url)
            if response.status_code in (301, 302):
                queue.append(response["Location"])
            if "html" in response.get("Content-Type", ""):
                queue.extend(_same_site(self.bodies[f"GET {url} "]))

    def leaks(self) -> dict[str, set[str]]:
        return {key: found for key, body in self.bodies.items() if (found := canaries_in(body))}


def _same_site(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    out = []
    for raw in parser.urls:
        url, _fragment = urldefrag(raw)
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path.startswith("/"):
            continue
        out.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return out


def every_route(crawl: Crawl, values: dict[str, Any]) -> int:
    """GET every URL route the ids in ``values`` fill (admin excepted); how many."""
    tried = 0
    for route in all_routes():
        url = fill(route, values)
        if url is None or url.startswith(SKIPPED) or url.startswith("/api/"):
            continue
        crawl.get(url)
        tried += 1
    return tried


# POST operations that read, or create what a player may create (a session, a fork, a copy).
API_POSTS = {
    "/api/versions/{version_id}/fork": {},
    "/api/play/sessions": {"version_id": "{version_id}", "mode": "offline"},
    "/api/play/guest-sessions": {"version_id": "{version_id}", "mode": "offline"},
    "/api/worlds/{world_id}/preview": {"messages": []},
    "/api/worlds/{world_id}/parse": {"text": "x"},
}


def every_operation(crawl: Crawl, values: dict[str, Any]) -> int:
    """Every GET operation of the OpenAPI document (and the posts of API_POSTS) with the ids
    in ``values`` and the query parameters they name; how many."""
    document = json.loads(Client().get("/api/openapi.json").content)
    tried = 0
    for route, operations in document["paths"].items():
        names = _PARAM.findall(route)
        if any(name not in values for name in names):
            continue
        url = _PARAM.sub(lambda m: str(values[m.group(1)]), route)
        if "get" in operations:
            query = _query(operations["get"], values)
            crawl.get(url, **query)
            if query:
                crawl.get(url)
            tried += 1
        if "post" in operations and route in API_POSTS:
            body = {k: _value(v, values) for k, v in API_POSTS[route].items()}
            crawl.post(url, body, json_body=True)
            tried += 1
    return tried


def _query(operation: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    params = operation.get("parameters", [])
    return {
        p["name"]: values[p["name"]] for p in params if p["in"] == "query" and p["name"] in values
    }


def _value(template: Any, values: dict[str, Any]) -> Any:
    if isinstance(template, str) and _PARAM.fullmatch(template):
        return values[template[1:-1]]
    return template


def crawl_all(crawl: Crawl, version: WorldVersion, session: Session) -> None:
    world_id, values = version.world_id, _values(version, session)
    crawl.post(reverse("fork", args=[version.pk]))
    assert every_route(crawl, values) > 40
    assert every_operation(crawl, values) > 25
    page = reverse("world_page", args=[world_id])
    crawl.follow(["/", f"/?q={version.name}", page, reverse("play:session", args=[session.pk])])
    for message_id in session.messages.values_list("pk", flat=True):
        crawl.get(reverse("play:message", args=[session.pk, message_id]))
    assert {f"GET {page} ", f"GET /versions/{version.pk}/export/ "} <= set(crawl.bodies)


def _values(version: WorldVersion, session: Session) -> dict[str, Any]:
    message = session.messages.order_by("pk").first()
    return {
        "world_id": version.world_id,
        "version_id": version.pk,
        "version": version.number,
        "session_id": session.pk,
        "message_id": message.pk if message is not None else 1,
        "q": version.name,
        "pk": 1,
    }


def started(response: Any) -> Session:
    assert response.status_code == 302, response.content[:500]
    match = re.fullmatch(r"/play/([0-9a-f-]{36})/", response["Location"])
    assert match is not None, response["Location"]
    return Session.objects.get(pk=match.group(1))


def test_a_guest_reaches_no_secret_of_a_game_master_world(client, canary):
    check_the_canary_world()
    crawl = Crawl(client)
    session = started(crawl.post(reverse("play:preview", args=[canary.pk]), {}))
    crawl_all(crawl, canary, session)
    assert len(crawl.bodies) > 80
    assert crawl.leaks() == {}
    assert CANARY not in json.dumps(_history(session))


@pytest.mark.django_db(transaction=True)  # the socket's database calls run in another thread
def test_a_signed_in_player_reaches_no_secret_of_a_game_master_world(client, alice, bob, canary):
    check_the_canary_world()
    client.force_login(bob)
    crawl = Crawl(client)
    form = {"mode": "offline", "character": ""}
    session = started(crawl.post(reverse("play:start", args=[canary.pk]), form))
    assert session.owner == bob
    crawl_all(crawl, canary, session)
    assert len(crawl.bodies) > 100
    assert crawl.leaks() == {}
    frames = async_to_sync(socket_frames)(session, bob, ["look", "look at the well", "wait"])
    assert {"history", "scene", "delta", "message_done"} <= {json.loads(f)["type"] for f in frames}
    assert [f for f in frames if CANARY in f] == []
    client.force_login(alice)  # the owner's export holds them all: the crawl could fail
    body = client.get(reverse("export_version", args=[canary.pk])).content.decode()
    assert canaries_in(body) == every_canary()


def _history(session: Session) -> dict[str, Any]:
    """The history frame the play socket sends first on joining."""
    from play import history

    return history.history_since(session, None, None)


# --- the socket --------------------------------------------------------------------------------


def _consumer_app() -> URLRouter:
    from play.consumers import PlayConsumer

    return URLRouter([path("ws/play/<str:session_id>/", PlayConsumer.as_asgi())])


async def socket_frames(session: Session, user: Any, actions: list[str]) -> list[str]:
    """Every frame the play socket sends ``user`` on joining and through ``actions``."""
    ws = WebsocketCommunicator(_consumer_app(), f"/ws/play/{session.pk}/")
    ws.scope["user"] = user
    ws.scope["session"] = SimpleNamespace(session_key=None)
    connected, _ = await ws.connect()
    assert connected
    texts = [await ws.receive_from(5)]
    for action in actions:
        await ws.send_to(text_data=json.dumps({"type": "send", "text": action}))
        texts += await _until_done(ws)
    await ws.disconnect()
    return texts


async def _until_done(ws: WebsocketCommunicator) -> list[str]:
    """Every frame up to the end of the turn, and what follows it within a moment."""
    texts: list[str] = []
    while True:
        text = await ws.receive_from(10)
        texts.append(text)
        frame = json.loads(text)
        if frame["type"] == "message_failed" or (
            frame["type"] == "message_done" and frame["message"]["role"] == "assistant"
        ):
            break
    while not await ws.receive_nothing(0.3):
        texts.append(await ws.receive_from(1))
    return texts
