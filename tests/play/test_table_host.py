"""The host's hand on his table (issue 32 §10; play.table_host, play.views.tables): a new
invitation link that kills the old one, and removing a player, whose socket closes, whose page
says so and who cannot sit again. Only the host, with CSRF, as a plain POST and with htmx."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.test import Client as HttpClient
from django.urls import reverse

from play import tables
from play.consumers import CLOSE_REMOVED
from play.models import Seat, Session, Table
from tests.play.test_gm_play import connect, gm_data, gm_session, publish_gm
from tests.play.test_tables import browser, invite, join, players_until

pytestmark = pytest.mark.django_db(transaction=True)
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def table(alice: Any, bob: Any) -> tuple[Session, Session]:
    """Alice hosts as Ren; Bob sits as Ada."""
    host = asyncio.run(gm_session(alice, publish_gm(alice, gm_data()), character="ren"))
    return host, join(bob, invite(alice, host), "ada")


def token_of(host: Session) -> str:
    return Table.objects.get(host=host).invite_token


def rotate(user: Any, session: Session, **extra: Any) -> Any:
    return browser(user).post(reverse("play:rotate_invite", args=[session.pk]), **extra)


def remove(user: Any, session: Session, character: str, **extra: Any) -> Any:
    url = reverse("play:remove_player", args=[session.pk])
    return browser(user).post(url, {"character": character}, **extra)


# --- a new invitation link ----------------------------------------------------------------------


def test_a_new_link_replaces_the_old_one_at_once(table, alice, charlie):
    host, _ = table
    old = token_of(host)
    response = rotate(alice, host)
    assert response.status_code == 302 and response["Location"] == f"/play/{host.pk}/"
    new = token_of(host)
    assert new != old
    assert browser(charlie).get(reverse("play:join", args=[old])).status_code == 404
    assert browser(charlie).get(reverse("play:join", args=[new])).status_code == 200
    page = browser(alice).get(reverse("play:session", args=[host.pk])).content.decode()
    assert reverse("play:join", args=[new]) in page and "New invite link" in page


def test_with_htmx_the_new_link_comes_as_the_fragment(table, alice):
    host, _ = table
    response = rotate(alice, host, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert reverse("play:join", args=[token_of(host)]) in body
    assert "the old one no longer works" in body


def test_the_seated_keep_their_seats_when_the_link_changes(table, alice, bob):
    host, guest = table
    rotate(alice, host)
    assert [p["character"] for p in tables.players(Table.objects.get(host=host))] == ["ren", "ada"]
    assert browser(bob).get(reverse("play:session", args=[guest.pk])).status_code == 200


# --- removing a player -----------------------------------------------------------------------


def test_a_removed_player_is_told_his_socket_closes_and_the_others_see_him_go(table, alice, bob):
    host, guest = table

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        ren = await connect(host, alice)
        ada = await connect(guest, bob)
        await players_until(ren, ada=True)
        response = await sync_to_async(remove)(alice, host, "ada")
        assert response.status_code == 302
        closed = await _closed(ada)
        left = await ren.until("players")
        await ren.close()
        return closed, left

    closed, left = asyncio.run(run())
    assert closed == {"type": "websocket.close", "code": CLOSE_REMOVED}
    assert [p["character"] for p in left["players"]] == ["ren"]
    page = browser(bob).get(reverse("play:session", args=[guest.pk])).content.decode()
    assert "The host removed you from this table." in page


async def _closed(client: Any) -> dict[str, Any]:
    while True:
        output: dict[str, Any] = await client.ws.receive_output(5)
        if output["type"] == "websocket.close":
            return output


def test_a_removed_player_cannot_sit_again_nor_act(table, alice, bob):
    host, guest = table
    old = token_of(host)
    assert remove(alice, host, "ada").status_code == 302
    refused = browser(bob).post(reverse("play:join", args=[old]), {"character": "ada"})
    assert refused.status_code == 403
    assert "The host removed you from this table." in refused.content.decode()
    assert Seat.objects.get(session=guest).left_at is not None
    rotate(alice, host)
    again = browser(bob).post(reverse("play:join", args=[token_of(host)]), {"character": "ada"})
    assert again.status_code == 403  # no link seats him again

    async def act() -> dict[str, Any]:
        ada = await connect(guest, bob)
        await ada.send(type="send", text="look")
        error = await ada.until("error")
        await ada.close()
        return error

    assert "The host removed you from this table." in asyncio.run(act())["error"]


def test_with_htmx_the_panel_comes_back_without_him(table, alice):
    host, _ = table
    response = remove(alice, host, "ada", **HTMX)
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body and "data-table" in body
    assert "Ada Thorne" not in body and "Ren Ashby" in body


def test_the_host_cannot_remove_himself_nor_a_character_nobody_plays(table, alice):
    host, _ = table
    assert remove(alice, host, "ren").status_code == 400
    assert remove(alice, host, "cai").status_code == 400
    assert remove(alice, host, "").status_code == 400
    assert len(tables.active_seats(Table.objects.get(host=host))) == 2


# --- who may ---------------------------------------------------------------------------------


def test_only_the_host_may_make_a_new_link_or_remove_a_player(table, alice, bob, charlie):
    host, guest = table
    token = token_of(host)
    assert rotate(bob, guest).status_code == 403  # his own seat: not the host's
    assert remove(bob, guest, "ren").status_code == 403
    assert rotate(bob, host).status_code == 404  # not his session
    assert remove(charlie, host, "ada").status_code == 404
    anonymous = HttpClient().post(reverse("play:rotate_invite", args=[host.pk]))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    assert token_of(host) == token
    assert len(tables.active_seats(Table.objects.get(host=host))) == 2
    page = browser(bob).get(reverse("play:session", args=[guest.pk])).content.decode()
    assert "New invite link" not in page and "data-remove-player" not in page


def test_both_need_the_csrf_token(table, alice):
    host, _ = table
    client = HttpClient(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(reverse("play:rotate_invite", args=[host.pk])).status_code == 403
    url = reverse("play:remove_player", args=[host.pk])
    assert client.post(url, {"character": "ada"}).status_code == 403
    assert len(tables.active_seats(Table.objects.get(host=host))) == 2


def test_the_hosts_words_are_translated(table, alice):
    host, _ = table
    client = browser(alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    page = client.get(reverse("play:session", args=[host.pk])).content.decode()
    assert "Nuevo enlace de invitación" in page and "Quitar" in page
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    page = client.get(reverse("play:session", args=[host.pk])).content.decode()
    assert "新的邀请链接" in page
