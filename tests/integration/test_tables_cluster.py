"""A shared table across two daphne processes on the real Redis channel layer and PostgreSQL
(issue 12 §4): Alice's socket is on one process, Bob's on the other; Ren's walk into Ada's
square reaches Bob's socket with its scene, both sessions hold the new world, and each process
counts its own socket in the players' list."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from play import tables
from play.models import Session
from tests.factories import make_user
from tests.integration.play_cluster import Socket, daphnes, open_socket
from tests.play.test_gm_play import gm_data, publish_gm

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def close_connections() -> Any:
    from django.db import connections

    yield
    await sync_to_async(connections.close_all)()


def cookie_of(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


@sync_to_async
def seated_pair() -> tuple[tuple[str, Session], tuple[str, Session]]:
    """Alice hosts Brackenford as Ren; Bob sits as Ada."""
    from play.gm import set_character
    from play.sessions import start_session

    alice, bob = make_user("alice"), make_user("bob")
    host = set_character(start_session(alice, publish_gm(alice, gm_data()), mode="offline"), "ren")
    table = tables.open_table(host, alice)
    guest = tables.join_table(bob, table, "ada")
    return (cookie_of(alice), host), (cookie_of(bob), guest)


@sync_to_async
def location_in(session: Session, character: str) -> str:
    session.refresh_from_db()
    return str(session.state["gm"]["characters"][character]["location"])


async def players_until(sock: Socket, **online: bool) -> dict[str, Any]:
    while True:
        frame = await sock.until("players")
        status = {p["character"]: p["online"] for p in frame["players"]}
        if all(status.get(who) == value for who, value in online.items()):
            return frame


async def test_a_turn_on_one_process_reaches_the_other_players_socket_on_another():
    (alice, host), (bob, guest) = await seated_pair()
    with daphnes(2) as (a, b):
        ren, _ = await open_socket(a, host.pk, alice)
        ada, _ = await open_socket(b, guest.pk, bob)
        await players_until(ren, ren=True, ada=True)
        await ren.send(type="send", text="go south")
        await ren.settle()
        told = await ada.until("message_done")
        scene = await ada.until("scene")
        # Ada has not met Ren: she reads how he looks, not his name (issue 33 §5)
        content = told["message"]["content"]
        assert "a lean young man" in content.lower() and "Ren" not in content
        assert told["message"]["role"] == "assistant"
        assert scene["place"]["id"] == "square"
        assert await location_in(guest, "ren") == await location_in(host, "ren") == "square"
        await ada.close()
        await players_until(ren, ada=False)
        await ren.close()
