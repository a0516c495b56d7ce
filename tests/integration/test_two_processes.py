"""A play session moves between two ASGI processes mid-conversation (issue 14 §5).

``config.serve`` runs two daphne children on one port, over the real Redis channel layer and
PostgreSQL, as a load balancer in front of many machines would spread sockets: nothing pins a
player to a process. The player's socket lands on one child, a turn streams from the loopback
model server, the socket closes mid-reply, and the player reconnects until the *other* child
holds the socket (which child accepted is read from /proc). That child must hand over the rest
of the reply by the protocol's client rule (docs/PROTOCOL.md: no seq gap, duplicates dropped),
the text must equal the saved message, ``message_done`` must arrive, and the next turn must
play through the second child."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from play.models import Message
from tests.integration.play_cluster import Socket, open_socket
from tests.integration.test_play_cluster import player_and_session, provider_env
from tests.integration.test_serve_launcher import Launcher, launched
from tests.support.model_server import ModelServer, Reply

pytestmark = pytest.mark.django_db(transaction=True)

RECONNECTS = 40  # sockets tried before concluding the second child never accepts one
FIRST_REPLY = "".join(f"w{i} " for i in range(240))  # ~6 s at 4 characters per 25 ms
SECOND_REPLY = "The second answer, told by the other process."


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


@sync_to_async
def saved_content(message_id: int) -> str:
    row = Message.objects.get(pk=message_id)
    assert row.status == "complete"
    return str(row.content)


async def socket_on(
    server: Launcher, session_id: Any, cookie: str, *, avoid: int | None = None
) -> tuple[Socket, dict[str, Any], int]:
    """A socket (and its ``history``) held by a child other than ``avoid``."""
    for _ in range(RECONNECTS):
        sock, history = await open_socket(server, session_id, cookie)  # type: ignore[arg-type]
        pid = server.serving_pid(sock.ws.local_address[1])
        assert pid in server.children
        if pid != avoid:
            return sock, history, pid
        await sock.close()
    raise AssertionError(f"{RECONNECTS} sockets in a row landed on child {avoid}")


def apply_deltas(sock: Socket, message_id: int, last: int) -> tuple[str, int]:
    """The protocol's client rule: drop a seq already seen, fail on a gap, append the rest."""
    text = ""
    for delta in sock.deltas(message_id):
        if delta["seq"] <= last:
            continue
        assert delta["first_seq"] == last + 1, f"gap after seq {last}: {delta['first_seq']}"
        text, last = text + delta["text"], delta["seq"]
    return text, last


async def test_a_session_moves_to_the_other_process_mid_reply_and_plays_on(model_server):
    model_server.script(
        [Reply(text=FIRST_REPLY, chunk_size=4, delay=0.025), Reply(text=SECOND_REPLY)]
    )
    cookie, session = await player_and_session()
    # PostgreSQL behind each process's own pool, as make serve-prod runs it.
    with launched(2, FABULA_DB_POOL="4", **provider_env(model_server)) as server:
        first, _, pid_a = await socket_on(server, session.pk, cookie)
        await first.send(type="send", text="Tell me")
        reply_id = (await first.until("message_start"))["message"]["id"]
        while len(first.deltas(reply_id)) < 20:
            await first.receive()
        heard_on_a, _ = apply_deltas(first, reply_id, 0)
        await first.close()

        second, history, pid_b = await socket_on(server, session.pk, cookie, avoid=pid_a)
        assert pid_b != pid_a
        streaming = next(m for m in history["messages"] if m["id"] == reply_id)
        assert streaming["status"] == "streaming", "the reply ended before the move"
        running = history["running"] or {"message_id": reply_id, "text": "", "seq": 0}
        assert running["message_id"] == reply_id
        done = await second.settle()
        rest, last = apply_deltas(second, reply_id, running["seq"])
        text = running["text"] + rest
        assert done["type"] == "message_done" and done["message"]["id"] == reply_id
        assert last > 20
        assert text == done["message"]["content"] == await saved_content(reply_id)
        assert text == FIRST_REPLY.strip() and text.startswith(heard_on_a)

        await second.send(type="send", text="And then?")
        next_id = (await second.until("message_start"))["message"]["id"]
        again = await second.settle()
        assert again["type"] == "message_done" and again["message"]["id"] == next_id
        told, _ = apply_deltas(second, next_id, 0)
        assert told == again["message"]["content"] == await saved_content(next_id)
        assert told == SECOND_REPLY
        assert server.serving_pid(second.ws.local_address[1]) == pid_b
        await second.close()
        await asyncio.sleep(0)
