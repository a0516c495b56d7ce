"""Two (or three) daphne processes on loopback over the real Redis channel layer and PostgreSQL:
the cross-process turn lock, coalesced group delivery, reconnecting mid-turn on the other
process, a process killed mid-turn, the Redis lock itself, and a real Celery worker."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from play.locks import KEY_PREFIX, RedisLocks
from play.models import Message, Session
from play.sessions import STALE_ERROR, start_session
from tests.factories import make_user, make_world
from tests.integration.play_cluster import (
    CeleryWorker,
    daphnes,
    open_socket,
    service_env,
)
from tests.play.conftest import PLAY_WORLD_ENTRIES, PLAY_WORLD_RULES, PLAY_WORLD_VARIABLES
from tests.support.model_server import ModelServer, Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def close_connections() -> Any:
    """The test's own database connection lives in asgiref's thread; let the DB teardown go."""
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
def player_and_session(mode: str = "live") -> tuple[str, Session]:
    from studio.publishing import publish_world

    alice = make_user("alice")
    world = make_world(
        alice, entries=PLAY_WORLD_ENTRIES, variables=PLAY_WORLD_VARIABLES, rules=PLAY_WORLD_RULES
    )
    session = start_session(alice, publish_world(world), mode=mode, dice_seed=3)
    client = Client()
    client.force_login(alice)
    return f"sessionid={client.cookies['sessionid'].value}", session


@sync_to_async
def reply_row(message_id: int) -> Message:
    return Message.objects.get(pk=message_id)


@sync_to_async
def session_values(session: Session) -> dict[str, Any]:
    session.refresh_from_db()
    return dict(session.state["values"])


async def test_sockets_from_another_origin_get_a_403_and_the_server_serves_on(model_server):
    """Refused before any consumer exists, so no channel-layer work per refused socket."""
    cookie, session = await player_and_session()
    with daphnes(1, **provider_env(model_server)) as (server,):
        for _ in range(50):
            with pytest.raises(InvalidStatus) as refused:
                await connect(
                    server.url(session.pk),
                    additional_headers={"Cookie": cookie, "Origin": "http://evil.example"},
                    open_timeout=10,
                )
            assert refused.value.response.status_code == 403
        sock, history = await open_socket(server, session.pk, cookie)
        assert history["type"] == "history"
        await sock.close()


async def test_one_turn_at_a_time_across_processes(model_server):
    model_server.script([Reply(text="slow " * 40, chunk_size=5, delay=0.03)])
    cookie, session = await player_and_session()
    with daphnes(2, **provider_env(model_server)) as (a, b):
        on_a, _ = await open_socket(a, session.pk, cookie)
        on_b, _ = await open_socket(b, session.pk, cookie)
        await on_a.send(type="send", text="first")
        await on_a.until("message_start")
        await on_b.send(type="send", text="second")
        busy = await on_b.until("busy")
        assert busy["frame"] == {"type": "send", "text": "second"}
        locks = RedisLocks(__import__("os").environ["REDIS_URL"])
        assert await locks.is_held(str(session.pk))
        done = await on_a.settle()
        assert done["message"]["content"] == ("slow " * 40).strip()
        assert len(model_server.requests) == 1
        await on_a.close()
        await on_b.close()


async def test_a_listener_on_another_process_gets_coalesced_deltas(model_server):
    model_server.script([Reply.generated(100, tokens_per_second=50)])
    cookie, session = await player_and_session()
    with daphnes(2, **provider_env(model_server)) as (a, b):
        player, _ = await open_socket(a, session.pk, cookie)
        listener, _ = await open_socket(b, session.pk, cookie)
        hearing = asyncio.ensure_future(listener.settle())  # read as frames arrive
        await player.send(type="send", text="Talk")
        start = await player.until("message_start")
        done = await player.settle()
        heard = await hearing
        reply_id = start["message"]["id"]
        local, remote = player.deltas(reply_id), listener.deltas(reply_id)
        assert heard["message"] == done["message"]
        assert "".join(d["text"] for d in remote) == done["message"]["content"]
        assert [d["first_seq"] for d in remote] == [1] + [d["seq"] + 1 for d in remote[:-1]]
        assert remote[-1]["seq"] == local[-1]["seq"]
        assert len(local) >= 90  # in-process: every token
        arrivals = [
            t
            for t, f in zip(listener.arrivals, listener.frames, strict=True)
            if f["type"] == "delta"
        ]
        duration = arrivals[-1] - arrivals[0]
        assert len(remote) <= duration * 10 + 3  # about ten frames a second at most
        assert len(remote) < len(local) / 3
        await player.close()
        await listener.close()


async def test_reconnecting_mid_turn_to_the_other_process_loses_nothing(model_server):
    text = "".join(f"w{i} " for i in range(120))
    model_server.script([Reply(text=text, chunk_size=4, delay=0.02)])
    cookie, session = await player_and_session()
    with daphnes(2, **provider_env(model_server)) as (a, b):
        player, _ = await open_socket(a, session.pk, cookie)
        await player.send(type="send", text="Tell me")
        start = await player.until("message_start")
        reply_id = start["message"]["id"]
        while len(player.deltas(reply_id)) < 20:
            await player.receive()
        await player.close()
        await asyncio.sleep(0.25)

        again, history = await open_socket(b, session.pk, cookie)
        streaming = next(m for m in history["messages"] if m["id"] == reply_id)
        assert streaming["status"] == "streaming"
        # The text so far comes either in ``running`` (stored with the last batch process A
        # sent) or, when A had no listener elsewhere until now, as the first batch B gets.
        running = history["running"] or {"message_id": reply_id, "text": "", "seq": 0}
        assert running["message_id"] == reply_id
        assert text.startswith(running["text"])
        done = await again.settle()
        later = again.deltas(reply_id)
        assert later[0]["first_seq"] == running["seq"] + 1
        assert len(running["text"] + later[0]["text"]) > 20 * 4  # what it missed, at once
        assert running["text"] + "".join(d["text"] for d in later) == done["message"]["content"]
        assert done["message"]["content"] == text.strip()
        await again.close()


async def test_stop_sent_to_another_process_stops_the_turn(model_server):
    model_server.script([Reply(text="On and on. " * 60, chunk_size=6, delay=0.03)])
    cookie, session = await player_and_session()
    with daphnes(2, **provider_env(model_server)) as (a, b):
        player, _ = await open_socket(a, session.pk, cookie)
        other, _ = await open_socket(b, session.pk, cookie)
        await player.send(type="send", text="Talk")
        start = await player.until("message_start")
        while len(player.deltas(start["message"]["id"])) < 5:
            await player.receive()
        await other.send(type="stop")
        done = await player.settle()
        assert done["message"]["stopped"] is True
        assert len(done["message"]["content"]) < len(("On and on. " * 60).strip())
        assert (await other.settle())["message"] == done["message"]
        await player.close()
        await other.close()


async def test_a_process_killed_mid_turn_leaves_a_failed_message(model_server):
    reply = "You are hit. [health: -40] " + "Blood. " * 100
    model_server.script([Reply(text=reply, chunk_size=6, delay=0.03)])
    cookie, session = await player_and_session()
    before = await session_values(session)
    with daphnes(2, **provider_env(model_server)) as (doomed, survivor):
        player, _ = await open_socket(doomed, session.pk, cookie)
        await player.send(type="send", text="I charge")
        start = await player.until("message_start")
        reply_id = start["message"]["id"]
        while len(player.deltas(reply_id)) < 5:
            await player.receive()
        doomed.kill()

        deadline = time.monotonic() + 10
        while True:
            sock, history = await open_socket(survivor, session.pk, cookie)
            await sock.close()
            message = next(m for m in history["messages"] if m["id"] == reply_id)
            if message["status"] != "streaming" or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.5)  # the dead process's lease has not expired yet
        assert message["status"] == "failed"
        assert message["error"] == STALE_ERROR
        row = await reply_row(reply_id)
        assert (row.status, row.error) == ("failed", STALE_ERROR)
        assert await session_values(session) == before


async def test_the_redis_lock_is_exclusive_renewed_and_expires(settings):
    import os

    settings.FABULA_TURN_LOCK_TTL_MS = 300
    locks = RedisLocks(os.environ["REDIS_URL"])
    name = f"test-{time.monotonic_ns()}"
    lease = await locks.acquire(name)
    assert lease is not None
    assert await locks.acquire(name) is None
    await asyncio.sleep(0.7)  # longer than the TTL: renewal keeps it
    assert await locks.is_held(name)
    assert not lease.lost
    await lease.release()
    assert not await locks.is_held(name)

    dead = await locks.acquire(name)
    assert dead is not None
    dead._renewals.discard(dead)  # the holder dies without releasing
    await asyncio.sleep(0.5)
    assert not await locks.is_held(name)
    taker = await locks.acquire(name)
    assert taker is not None
    await dead.release()  # a stale holder cannot release the new one
    assert await locks.is_held(name)
    await taker.release()
    assert not await locks.client().exists(KEY_PREFIX + name)


async def test_a_celery_worker_compacts_the_story(settings):
    from play.replies import commit_turn, prepare_turn
    from play.tasks import compact_story

    _cookie, session = await player_and_session(mode="offline")

    @sync_to_async
    def play_turns() -> int:
        from engine.turn import TurnResult
        from play.sessions import Player

        for i in range(8):
            plan = prepare_turn(str(session.pk), Player(session.owner_id), "message", f"Go {i}")
            result = TurnResult(
                text=f"You go on, step {i}. The road bends.", raw="", state=plan.state
            )
            commit_turn(plan, result, 1, None)
        return int(session.messages.order_by("-position").values_list("position")[6][0])

    from config.celery import app as celery_app

    upto = await play_turns()
    worker = CeleryWorker(service_env())
    eager, celery_app.conf.task_always_eager = celery_app.conf.task_always_eager, False
    try:
        result = await asyncio.to_thread(compact_story.delay(str(session.pk), upto).get, 60)
    finally:
        celery_app.conf.task_always_eager = eager
        worker.stop()
    assert result["folded"] > 0

    @sync_to_async
    def compacted() -> tuple[str, int]:
        session.refresh_from_db()
        return session.state["compaction_summary"], session.messages.filter(compacted=True).count()

    summary, count = await compacted()
    assert "You go on, step 0." in summary
    assert count == result["folded"]
