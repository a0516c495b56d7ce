"""A shared table delivers what was perceived, never what was typed (issue 32 §10), and gives a
joiner no dice seed (issue 32 §3): the other seat's frames, stored messages, Memory panel and
every page and payload it can open."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from django.urls import reverse

from play.memory import summarise_memory
from play.models import Session
from studio.models import WorldVersion
from tests.play.test_gm_play import act, gm_data, gm_session, publish_gm
from tests.play.test_tables import browser, invite, join, pair

pytestmark = pytest.mark.django_db(transaction=True)

SEED = 271828182845904  # the host's: digits that appear nowhere else
TYPED = [
    "I whisper to myself: the chalice is in my coat",
    "steal from Greta",
    "search my coat",
    "I think to myself: Greta suspects nothing",
]
ALOUD = 'I tell Ada: "meet me at the mill"'
NEVER = ("chalice", "coat", "Greta", "suspects", "whisper")
# How Ada sees Ren until she hears his name (issue 33 §5): his coat, not the one he typed of.
REN_LOOKS = "ean young man in a patched green coat"


@pytest.fixture
def gm_version(alice: Any) -> WorldVersion:
    return publish_gm(alice, gm_data())


@pytest.fixture
def table(alice: Any, bob: Any, gm_version: WorldVersion) -> tuple[Session, Session]:
    """Alice hosts as Ren (in the Wayfarer, her own dice seed); Bob joins as Ada (in the square,
    beside Greta the moneylender, whose name Ada never heard)."""
    host = asyncio.run(gm_session(alice, gm_version, character="ren", seed=SEED))
    return host, join(bob, invite(alice, host), "ada")


def play_at_the_table(host: Session, guest: Session, alice: Any, bob: Any) -> list[Any]:
    """Ren walks into the square and does what he typed; the frames Ada's socket got."""

    async def run() -> list[Any]:
        ren, ada = await pair(host, guest, alice, bob)
        await act(ren, type="send", text="go south")
        for text in TYPED:
            await act(ren, type="send", text=text)
        await act(ren, type="send", text=ALOUD)
        await ada.until("message_done")  # "Ren Ashby arrives…"
        heard = await ada.until("message_done")
        while "meet me at the mill" not in heard["message"]["content"]:
            heard = await ada.until("message_done")
        await act(ada, type="send", text="look around")
        await ren.close()
        await ada.close()
        return ada.frames

    return asyncio.run(run())


def test_the_other_seat_reads_what_its_character_perceived_never_what_was_typed(table, alice, bob):
    host, guest = table
    frames = json.dumps(play_at_the_table(host, guest, alice, bob), ensure_ascii=False)
    stored = " ".join(guest.messages.values_list("content", flat=True))
    for text in (frames, stored):
        assert all(typed not in text for typed in [*TYPED, ALOUD])
        assert all(word not in text.replace(REN_LOOKS, "") for word in NEVER), text
    assert "Ren Ashby: “meet me at the mill”" in frames  # words said aloud are heard
    assert "The moneylender: “" in stored  # Greta speaks, named as Ada knows her


def test_the_other_seats_memory_panel_holds_none_of_what_was_typed(table, alice, bob):
    host, guest = table
    play_at_the_table(host, guest, alice, bob)
    summarise_memory.delay(str(guest.pk), True).get()  # Bob ends his session: its recap
    guest.refresh_from_db()
    memory = guest.state["session_memory"]
    assert "meet me at the mill" in memory
    page = browser(bob).get(reverse("play:memory", args=[guest.pk])).content.decode()
    for text in (memory, page):
        assert all(typed not in text for typed in [*TYPED, ALOUD])
        assert all(word not in text for word in NEVER)


def test_a_joiner_gets_a_seed_of_his_own_and_sees_none(table, alice, bob):
    host, guest = table
    play_at_the_table(host, guest, alice, bob)
    host.refresh_from_db()
    guest.refresh_from_db()
    assert guest.dice_seed != host.dice_seed
    table_dice = str(host.state["gm"]["dice"]["seed"])
    seen = [json.dumps(f) for f in play_at_the_table(host, guest, alice, bob)]
    client = browser(bob)
    for url in (
        reverse("play:session", args=[guest.pk]),
        reverse("play:memory", args=[guest.pk]),
        reverse("play:demo_download", args=[guest.pk]),
        f"/api/play/sessions/{guest.pk}",
        f"/api/play/sessions/{guest.pk}/messages",
        f"/api/play/sessions/{guest.pk}/recording",
        "/api/play/sessions",
    ):
        seen.append(client.get(url).content.decode())
    for text in seen:
        assert str(SEED) not in text and table_dice not in text
