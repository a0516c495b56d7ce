"""A live master turn through a real daphne process, real websockets, Redis and PostgreSQL
(issue 37 §1–2): the master's steps reach the player before its narration, also on a socket of
another process, and a stop mid-turn ends it at once with nothing applied."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from play.gm import set_character
from play.models import Session
from play.sessions import start_session
from tests.factories import make_user
from tests.integration.play_cluster import daphnes, open_socket
from tests.support.model_server import Fault, ModelServer, Reply

pytestmark = pytest.mark.django_db(transaction=True)

CALM = "You hum an old song; the notes drift over the cobbles."
RULE = {"name": "lookup_rule", "arguments": {"topic": "advantage"}}
MOVE = {"name": "move_character", "arguments": {"to": "chapel"}}
CLOSE = {"name": "log_event", "arguments": {"narration": CALM}}


@pytest.fixture(autouse=True)
async def close_connections() -> Any:
    from django.db import connections

    yield
    await sync_to_async(connections.close_all)()


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    with ModelServer() as server:
        yield server


def provider_env(server: ModelServer) -> dict[str, str]:
    return {
        "FABULA_PROVIDER": "openai",
        "FABULA_BASE_URL": server.openai_url,
        "FABULA_MODEL": "test-model",
        "FABULA_API_KEY": "sk-test",
    }


@sync_to_async
def gm_player() -> tuple[str, Session]:
    from studio.publishing import publish_world
    from studio.worlds import import_world

    alice = make_user("alice")
    with open("studio/fixtures/gm_demo_world.json", encoding="utf-8") as source:
        data = json.load(source)
    session = start_session(alice, publish_world(import_world(alice, data)), mode="live")
    session = set_character(session, "ada")
    client = Client()
    client.force_login(alice)
    return f"sessionid={client.cookies['sessionid'].value}", session


@sync_to_async
def saved_location(session: Session) -> str | None:
    session.refresh_from_db()
    gm = session.state.get("gm") or {}
    return (gm.get("characters") or {}).get("ada", {}).get("location")


async def test_the_masters_steps_reach_both_processes_before_its_narration(model_server):
    model_server.script([Reply(tool_calls=(RULE,), delay=0.05), Reply(tool_calls=(CLOSE,))])
    cookie, session = await gm_player()
    with daphnes(2, **provider_env(model_server)) as (a, b):
        player, _ = await open_socket(a, session.pk, cookie)
        listener, _ = await open_socket(b, session.pk, cookie)
        await player.send(type="send", text="I hum an old song")
        done = await player.settle()
        await listener.settle()
        for sock in (player, listener):
            kinds = [f["type"] for f in sock.frames]
            steps = [f["step"] for f in sock.frames if f["type"] == "status"]
            assert steps[:2] == ["thinking", "rule"] and "writing" in steps
            assert kinds.index("status") < kinds.index("delta")
        assert done["message"]["content"] == CALM
        await player.close()
        await listener.close()


async def test_a_stop_mid_master_turn_ends_it_with_nothing_applied(model_server):
    model_server.script([Reply(tool_calls=(MOVE,)), Fault("stall_before_first_token", seconds=60)])
    cookie, session = await gm_player()
    with daphnes(1, **provider_env(model_server)) as (server,):
        sock, _ = await open_socket(server, session.pk, cookie)
        await sock.send(type="send", text="I hum an old song")
        while (await sock.until("status"))["step"] != "moving":
            pass
        await sock.until("status")  # the next model call, which never answers
        await sock.send(type="stop")
        done = await sock.settle()
        assert done["type"] == "message_done" and done["message"]["stopped"] is True
        assert await saved_location(session) in (None, "square")
        model_server.script([Reply(tool_calls=(CLOSE,))])
        await sock.send(type="send", text="I hum an old song")
        again = await sock.settle()
        assert again["message"]["content"] == CALM and again["message"]["stopped"] is False
        await sock.close()
