"""A table that feels like a table (issue 33 §5): a joiner starts with the scene of his place and
his own turn count, every page labels the seats by character, players are strangers until they
meet, and the invitation link has a Copy button."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from django.urls import reverse

from play.models import Session, Table
from studio.models import WorldVersion
from tests.play.test_gm_play import act, connect, gm_data, gm_session, of_type, publish_gm
from tests.play.test_tables import browser, invite, join

pytestmark = pytest.mark.django_db(transaction=True)

REN_LOOKS = "a lean young man in a patched green coat"  # his public appearance, to strangers


@pytest.fixture
def gm_version(alice: Any) -> WorldVersion:
    return publish_gm(alice, gm_data())


def host_plays(host: Session, alice: Any, *texts: str) -> None:
    async def run() -> None:
        ren = await connect(host, alice)
        for text in texts:
            await act(ren, type="send", text=text)
        await ren.close()

    asyncio.run(run())


@pytest.fixture
def table(alice: Any, bob: Any, gm_version: WorldVersion) -> tuple[Session, Session]:
    """Alice has played Ren three turns into the square; Bob then joins as Ada, who stands
    there and has never met him."""
    host = asyncio.run(gm_session(alice, gm_version, character="ren"))
    host_plays(host, alice, "go south", "look", "look")
    return host, join(bob, invite(alice, host), "ada")


# --- the joiner's first message and turn count ------------------------------------------------


def test_a_joiner_starts_with_the_scene_of_his_place_described_by_the_engine(table):
    _, guest = table
    [first] = guest.messages.all()
    assert (first.role, first.source, first.position) == ("assistant", "engine", 0)
    assert first.content.startswith("Market Square. Cobbles around an old well")
    assert f"Here: moneylender, {REN_LOOKS}." in first.content  # strangers, as Ada knows them
    assert "Ren" not in first.content and "Greta" not in first.content


def test_the_joiners_page_shows_his_scene_not_an_empty_story(table, bob):
    _, guest = table
    page = browser(bob).get(reverse("play:session", args=[guest.pk])).content.decode()
    assert 'class="msg-empty"' not in page  # "The story has not begun. Say something."
    assert "Market Square. Cobbles around an old well" in page


def test_a_joiner_counts_his_own_turns_not_the_hosts(table, bob):
    host, guest = table

    async def run() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        ada = await connect(guest, bob)
        history = ada.frames[0]
        played = await act(ada, type="send", text="look")
        await ada.close()
        return history, played

    history, played = asyncio.run(run())
    host.refresh_from_db()
    assert host.state["turn"] >= 3  # the table's turn: the host's actions, for the rules
    assert history["state"]["own_turn"] == 0
    [state] = of_type(played, "state")
    assert state["own_turn"] == 1 and state["turn"] == host.state["turn"]


def test_the_host_keeps_counting_his_own_turns(table, alice):
    host, _ = table

    async def run() -> dict[str, Any]:
        ren = await connect(host, alice)
        history = ren.frames[0]
        await ren.close()
        return history

    assert asyncio.run(run())["state"]["own_turn"] == 3


# --- seat labels --------------------------------------------------------------------------------


def test_every_page_labels_the_seats_by_character_name(table, alice, bob):
    host, guest = table
    pages = {
        "ren": browser(alice).get(reverse("play:session", args=[host.pk])).content.decode(),
        "ada": browser(bob).get(reverse("play:session", args=[guest.pk])).content.decode(),
    }
    for page in pages.values():
        assert '<span class="table-character">Ren Ashby</span>' in page
        assert '<span class="table-character">Ada Thorne</span>' in page
    you = '<span class="table-you"> (you)</span>'
    assert f"Ren Ashby</span>{you}" in pages["ren"] and f"Ada Thorne</span>{you}" in pages["ada"]
    assert f"Ada Thorne</span>{you}" not in pages["ren"]
    # his own messages: his character's name, not "You" on one page and "bob" on the other
    assert '"playerName": "Ren Ashby"' in pages["ren"]
    assert '"playerName": "Ada Thorne"' in pages["ada"]


def test_a_joiners_own_message_is_labelled_with_his_character(table, bob):
    _, guest = table

    async def run() -> None:
        ada = await connect(guest, bob)
        await act(ada, type="send", text="look")
        await ada.close()

    asyncio.run(run())
    page = browser(bob).get(reverse("play:session", args=[guest.pk])).content.decode()
    assert "<span>Ada Thorne</span>" in page and "<span>bob</span>" not in page


# --- naming -------------------------------------------------------------------------------------


def test_players_are_named_to_each_other_only_once_introduced(table, alice, bob):
    host, guest = table

    def last_told(frames: list[dict[str, Any]]) -> str:
        return str(of_type(frames, "message_done")[-1]["message"]["content"])

    async def run() -> tuple[str, str, str]:
        ren = await connect(host, alice)
        ada = await connect(guest, bob)
        before = last_told(await act(ada, type="send", text="look"))
        await act(ren, type="send", text='I say: "Good morning, I am Ren Ashby."')
        heard = await ada.until("message_done", timeout=10)
        while heard["message"]["role"] != "assistant":
            heard = await ada.until("message_done")
        after = last_told(await act(ada, type="send", text="look"))
        await ren.close()
        await ada.close()
        return before, heard["message"]["content"], after

    before, heard, after = asyncio.run(run())
    assert f"Here: moneylender, {REN_LOOKS}." in before and "Ren" not in before
    assert heard.startswith("Ren Ashby: “Good morning, I am Ren Ashby.”")
    assert "Here: moneylender, Ren Ashby." in after


# --- the invitation -----------------------------------------------------------------------------


def test_the_invitation_link_has_a_copy_button_wired_without_inline_script(table, alice):
    host, _ = table
    response = browser(alice).post(reverse("play:invite", args=[host.pk]))
    fragment = response.content.decode()
    assert 'data-copy="#invite-link"' in fragment and 'data-copied="Copied"' in fragment
    assert ">Copy</button>" in fragment and "<script" not in fragment
    page = browser(alice).get(reverse("play:session", args=[host.pk])).content.decode()
    assert 'data-copy="#invite-link"' in page and "js/copy.js" in page


@pytest.mark.parametrize(
    ("language", "copy", "copied"), [("es", "Copiar", "Copiado"), ("zh-hans", "复制", "已复制")]
)
def test_the_copy_button_speaks_the_players_language(table, alice, language, copy, copied):
    host, _ = table
    client = browser(alice)
    client.cookies["django_language"] = language
    fragment = client.post(reverse("play:invite", args=[host.pk])).content.decode()
    assert f">{copy}</button>" in fragment and f'data-copied="{copied}"' in fragment
    assert Table.objects.filter(host=host).count() == 1
