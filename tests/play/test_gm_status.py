"""The play page shows the game (issue 33 §4): a game-master character's sheet in the Status
panel (play.status, templates/play/partials/gm_status.html) and the NPC's speech bubbles for the
player who acts on a fully narrated turn."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.test import Client as HttpClient
from django.urls import reverse

from play.models import Session
from studio.models import WorldVersion
from tests.play.test_gm_play import act, connect, gm_data, gm_session, publish_gm, reply_of

pytestmark = pytest.mark.django_db(transaction=True)

SEED = 918273645
PLANTED = {
    "greta": "PLANTED-GRETA-SECRET",  # an NPC's secret
    "ada": "PLANTED-ADA-SHEET",  # another character's full sheet
    "ren": "PLANTED-REN-BACKGROUND",  # his own full sheet is not the panel's either
    "notes": "PLANTED-GM-NOTES",
}
UNKNOWN_TO_REN = ["Father Aldric", "Osric Pell", "Jory Brant", "Ada Thorne", "father-aldric"]
HIDDEN_TO_REN = ["The Old Mill", "The Wayfarer's Cellar", "old-mill"]


def planted_world() -> dict[str, Any]:
    data = gm_data()
    block = data["gameMaster"]
    greta = next(n for n in block["npcs"] if n["id"] == "greta")
    greta["secret"]["text"] = PLANTED["greta"]
    sheets = {c["id"]: c for c in block["characters"]}
    sheets["ada"]["full"]["secrets"] = [PLANTED["ada"]]
    sheets["ren"]["full"]["background"] = PLANTED["ren"]
    block["campaign"]["gmNotes"] = PLANTED["notes"]
    return data


@pytest.fixture
def planted(alice: Any) -> WorldVersion:
    return publish_gm(alice, planted_world())


@sync_to_async
def status_html(session: Session, user: Any, language: str = "en") -> str:
    http = HttpClient()
    http.force_login(user)
    http.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    response = http.get(reverse("play:status", args=[session.pk]))
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("max-age=0")
    return response.content.decode()


async def ren_after_a_few_moves(user: Any, version: WorldVersion) -> Session:
    session = await gm_session(user, version, character="ren", seed=SEED)
    client = await connect(session, user)
    await client.until("scene")
    for text in ["take the coil of rope", "go to the market square", "read the notice board"]:
        assert reply_of(await act(client, type="send", text=text))["usage"]["source"] == "engine"
    await client.close()
    return session


async def test_the_status_panel_shows_hp_money_items_journal_and_whom_he_knows(alice, planted):
    session = await ren_after_a_few_moves(alice, planted)
    html = await status_html(session, alice)
    assert "Ren Ashby" in html and "Market Square" in html
    assert "9 / 9" in html  # hit points, current and max
    assert "<dd data-gm-money>3</dd>" in html
    assert 'coil of rope</span> <span class="gm-qty" data-gm-qty>×1' in html
    assert "<dd data-gm-equipped>dagger</dd>" in html
    assert "Reward: the chapel&#x27;s chalice" in html  # a quest read on the board…
    assert "active" in html
    assert "Stray dog" in html  # …and the notices read
    assert "You owe 12 to Greta Vell" in html and "Pawned: silver signet ring" in html
    people = html.split("data-gm-people>")[1].split("</ul>")[0]
    assert "Hilda Brant" in people and "Greta Vell" in people  # names he knows


async def test_the_status_panel_holds_no_secret_and_no_name_he_has_not_learnt(alice, planted):
    session = await ren_after_a_few_moves(alice, planted)
    html = await status_html(session, alice)
    for leak in [*PLANTED.values(), *UNKNOWN_TO_REN, *HIDDEN_TO_REN, str(SEED)]:
        assert leak not in html, leak


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("es", ["Puntos de golpe", "Diario", "Dinero", "Debes 12 a Greta Vell", "la mañana"]),
        ("zh-hans", ["生命值", "日志", "金钱", "你欠格蕾塔·维尔 12", "第1天，早上"]),  # her zh name
    ],
)
async def test_the_status_panel_speaks_the_pages_language(alice, planted, language, words):
    session = await ren_after_a_few_moves(alice, planted)
    html = await status_html(session, alice, language)
    for said in words:  # labels from the catalogue, the time of day from the engine's words
        assert said in html, said
    assert "Hit points" not in html and "Journal" not in html and "morning" not in html


def test_the_play_page_draws_the_sheet_and_fetches_it_again_when_the_state_changes(
    client, alice, planted
):
    from play.sessions import start_session

    session = start_session(alice, planted, mode="offline")
    client.force_login(alice)
    html = client.get(reverse("play:session", args=[session.pk])).content.decode()
    assert "data-gm-sheet" in html and "Ren Ashby" in html  # drawn at once, before any action
    status_url = reverse("play:status", args=[session.pk])
    assert f'hx-get="{status_url}"' in html
    assert "fabula:state from:body" in html and "fabula:scene from:body" in html


def test_another_player_and_a_plain_session_have_no_status_panel(
    client, alice, bob, planted, play_session
):
    from play.sessions import start_session

    session = start_session(alice, planted, mode="offline")
    client.force_login(bob)
    assert client.get(reverse("play:status", args=[session.pk])).status_code == 404
    client.force_login(alice)
    assert client.get(reverse("play:status", args=[play_session.pk])).status_code == 404
    page = client.get(reverse("play:session", args=[play_session.pk])).content.decode()
    assert "data-gm-status" not in page


# --- the actor's speech bubbles --------------------------------------------------------------

NARRATION = "Hilda sets down the mug she was drying and looks you over."
WORDS = "Well enough, and busy. What'll it be?"


async def test_the_actor_sees_the_npcs_bubbles_on_a_fully_narrated_first_turn(
    alice, planted, live_openai
):
    """The first turn of a chat is narrated in full (GM-P-4): the master's prose, and under it
    Hilda's bubble, which everyone else present receives too."""
    from tests.support.model_server import Reply

    close = {
        "name": "log_event",
        "arguments": {
            "narration": NARRATION,
            "bubbles": [{"speaker": "hilda", "text": WORDS, "gesture": "wipes the bar"}],
            "suggestions": ["Order an ale", "Ask about work"],
        },
    }
    live_openai.script([Reply(text="", tool_calls=(close,))])
    session = await gm_session(alice, planted, character="ren", mode="live")
    client = await connect(session, alice)
    await client.until("scene")
    reply = reply_of(await act(client, type="send", text="Good morning, Hilda. How are you?"))
    await client.close()
    assert reply["content"] == NARRATION  # the actor's narration: the full prose
    assert reply["speech"] == {
        "narration": NARRATION,
        "bubbles": [{"name": "Hilda Brant", "text": WORDS, "gesture": "wipes the bar"}],
        "aside": "",
    }
