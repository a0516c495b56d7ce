"""Play fixtures: the embedded mode forced on (in-memory channel layer, local locks, eager
Celery) even when CI exports REDIS_URL, a published world with greetings, and socket helpers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from channels.layers import channel_layers
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from config.celery import app as celery_app
from play import locks, relay
from play.models import Session
from play.sessions import start_session
from studio.models import WorldVersion
from studio.publishing import publish_world
from tests.factories import make_world
from tests.support.model_server import ModelServer

PLAY_WORLD_ENTRIES = [
    {
        "id": "narrator",
        "name": "Narrator",
        "content": "You narrate the salt road. {{char}} speaks plainly.",
        "role": "system",
        "section": "system-presets",
    },
    {
        "id": "greeting-dawn",
        "name": "Dawn",
        "content": "Dawn over the salt, {{user}}. [gold: 5]",
        "role": "greeting",
        "section": "chat-history",
        "position": 0,
    },
    {
        "id": "greeting-dusk",
        "name": "Dusk",
        "content": "Dusk falls on the caravan.",
        "role": "greeting",
        "section": "chat-history",
        "position": 1,
    },
]
PLAY_WORLD_VARIABLES = [
    {
        "id": "health",
        "name": "Health",
        "type": "number",
        "defaultValue": 100,
        "min": 0,
        "max": 100,
    },
    {"id": "gold", "name": "Gold", "type": "number", "defaultValue": 0},
]
PLAY_WORLD_RULES = [
    {
        "id": "low-health-warning",
        "name": "Low health",
        "trigger": {
            "type": "variable-crossed",
            "variableId": "health",
            "direction": "drops-below",
            "threshold": 20,
        },
        "actions": [{"type": "notify-player", "style": "warning", "message": "You reel."}],
    },
    {
        "id": "open-chest",
        "name": "Open the chest",
        "trigger": {"type": "action", "actionId": "open-chest"},
        "actions": [
            {"type": "modify-variable", "variableId": "gold", "operation": "add", "value": 10}
        ],
    },
]


@pytest.fixture(scope="session", autouse=True)
def close_thread_connections(django_db_setup: Any, django_db_blocker: Any) -> Iterator[None]:
    """Close what async tests opened in asgiref's worker thread before the test DB is dropped.

    Straight on that thread, not through ``asyncio.run``: the last test of a worker may be a
    browser test, whose Playwright loop is still running in this thread at session teardown."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    with django_db_blocker.unblock():
        SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture(autouse=True)
def embedded_mode(settings: Any) -> Iterator[None]:
    """Unit tests run in one process: in-memory layer, local locks, eager Celery, no network."""
    settings.REDIS_URL = ""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.FABULA_PROVIDER = "offline"
    settings.FABULA_DAILY_ACTION_QUOTA = 200
    settings.FABULA_FIRST_TOKEN_TIMEOUT = 2.0
    settings.FABULA_PROVIDER_TIMEOUT = 2.0
    settings.FABULA_PROVIDER_BACKOFF = 0.01
    settings.FABULA_PROVIDER_RETRIES = 2
    channel_layers.backends.clear()
    locks.reset_local_locks()
    relay.relay.hubs.clear()
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True  # the app may have read settings before this
    yield
    celery_app.conf.task_always_eager = eager
    channel_layers.backends.clear()
    locks.reset_local_locks()
    relay.relay.hubs.clear()


@pytest.fixture
def version(alice: Any) -> WorldVersion:
    world = make_world(
        alice, entries=PLAY_WORLD_ENTRIES, variables=PLAY_WORLD_VARIABLES, rules=PLAY_WORLD_RULES
    )
    return publish_world(world)


@pytest.fixture
def play_session(alice: Any, version: WorldVersion) -> Session:
    return start_session(alice, version, mode="offline", dice_seed=7)


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    with ModelServer() as server:
        yield server


@pytest.fixture
def live_openai(settings: Any, model_server: ModelServer) -> ModelServer:
    settings.FABULA_PROVIDER = "openai"
    settings.FABULA_BASE_URL = model_server.openai_url
    settings.FABULA_MODEL = "test-model"
    settings.FABULA_API_KEY = "sk-test"
    return model_server


@pytest.fixture
def live_anthropic(settings: Any, model_server: ModelServer) -> ModelServer:
    settings.FABULA_PROVIDER = "anthropic"
    settings.FABULA_BASE_URL = model_server.anthropic_url
    settings.FABULA_MODEL = "claude-test"
    settings.FABULA_API_KEY = "sk-ant-test"
    return model_server


class Client:
    """A websocket client of the play consumer that collects frames."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.ws = communicator
        self.frames: list[dict[str, Any]] = []

    async def send(self, **frame: Any) -> None:
        await self.ws.send_to(text_data=json.dumps(frame))

    async def send_text(self, text: str) -> None:
        await self.ws.send_to(text_data=text)

    async def receive(self, timeout: float = 5) -> dict[str, Any]:
        frame = json.loads(await self.ws.receive_from(timeout))
        self.frames.append(frame)
        return frame

    async def until(self, kind: str, timeout: float = 10, **match: Any) -> dict[str, Any]:
        """Receive frames until one of ``kind`` (matching ``match``) arrives."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            frame = await self.receive(max(0.01, deadline - loop.time()))
            if frame["type"] == kind and all(frame.get(k) == v for k, v in match.items()):
                return frame

    async def settle(self, timeout: float = 10) -> dict[str, Any]:
        """Wait for the end of the running turn (done or failed)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            frame = await self.receive(max(0.01, deadline - loop.time()))
            if frame["type"] in ("message_done", "message_failed") and (
                frame["type"] == "message_failed" or frame["message"]["role"] == "assistant"
            ):
                return frame

    async def quiet(self, timeout: float = 0.2) -> bool:
        return await self.ws.receive_nothing(timeout)

    async def close(self) -> None:
        await self.ws.disconnect()


def guest_store() -> SessionStore:
    store = SessionStore()
    store.create()
    return store


def consumer_app() -> URLRouter:
    """The play route straight to the consumer, without config.socket_gate's layer: these
    sockets come with the user and session a test puts in their scope, and no Origin."""
    from django.urls import path

    from play.consumers import PlayConsumer

    return URLRouter([path("ws/play/<str:session_id>/", PlayConsumer.as_asgi())])


async def connect(
    session_id: Any, user: Any = None, session_store: Any = None
) -> tuple[Client, Any]:
    """Connect as ``user`` (or anonymously with ``session_store``); returns the client and the
    first frame (the history) or the close event."""
    from django.contrib.auth.models import AnonymousUser

    communicator = WebsocketCommunicator(consumer_app(), f"/ws/play/{session_id}/")
    communicator.scope["user"] = user if user is not None else AnonymousUser()
    communicator.scope["session"] = session_store or SimpleNamespace(session_key=None)
    connected, _ = await communicator.connect()
    assert connected
    client = Client(communicator)
    output = await communicator.receive_output(5)
    if output["type"] == "websocket.close":
        return client, output
    frame = json.loads(output["text"])
    client.frames.append(frame)
    return client, frame
