"""A game-master world over the play websocket (issue 10 §4, §5): engine moves, pending checks,
the roll frame and its breakdown, hidden rolls, board clicks, the character a session plays and
each character's daily quota in the player's time zone."""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client as HttpClient
from django.utils import timezone

from play.gm import set_character
from play.gm_quota import character_subject, player_zone
from play.models import DailyActionCount, Session
from play.sessions import Player, start_session, world_of
from studio.models import WorldVersion
from studio.publishing import publish_world
from studio.worlds import import_world
from tests.play.conftest import Client, consumer_app
from tests.support.model_server import Fault

pytestmark = pytest.mark.django_db(transaction=True)

GM_DEMO = "studio/fixtures/gm_demo_world.json"
CLIMB = "That is risky. Roll Athletics (DC 15)."
NOTICE = (
    "Ada Thorne has used up today's 1 live actions, so the offline master answers until "
    "midnight. They come back at 00:00 on {date} ({zone})."
)


def gm_data(**settings: Any) -> dict[str, Any]:
    with open(GM_DEMO, encoding="utf-8") as source:
        data: dict[str, Any] = json.load(source)
    data["gameMaster"]["settings"].update(settings)
    return copy.deepcopy(data)


def publish_gm(owner: Any, data: dict[str, Any]) -> WorldVersion:
    return publish_world(import_world(owner, data))


@pytest.fixture
def gm_version(alice: Any) -> WorldVersion:
    return publish_gm(alice, gm_data())


@pytest.fixture
def small_quota(alice: Any) -> WorldVersion:
    """Brackenford with one live action per character and day."""
    return publish_gm(alice, gm_data(dailyQuota=1))


async def gm_session(
    user: Any, version: WorldVersion, character: str = "ada", mode: str = "offline", seed: int = 7
) -> Session:
    def start() -> Session:
        session = start_session(user, version, mode=mode, dice_seed=seed)
        return set_character(session, character)

    return await sync_to_async(start)()


async def connect(session: Session, user: Any, zone: str | None = None) -> Client:
    """The play socket, as a browser in ``zone``; the history and the join frames are read."""
    path = f"/ws/play/{session.pk}/" + (f"?tz={quote(zone)}" if zone else "")
    ws = WebsocketCommunicator(consumer_app(), path)
    ws.scope["user"] = user
    ws.scope["session"] = SimpleNamespace(session_key=None)
    connected, _ = await ws.connect()
    assert connected
    client = Client(ws)
    assert (await client.receive())["type"] == "history"
    return client


async def act(client: Client, **frame: Any) -> list[dict[str, Any]]:
    """Send one frame and return every frame up to the end of its turn and the scene after
    (with the check it waits on, when it does)."""
    start = len(client.frames)
    await client.send(**frame)
    await client.settle()
    if (await client.until("scene"))["pending"] is not None:
        await client.until("check-pending")
    return client.frames[start:]


def of_type(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [f for f in frames if f["type"] == kind]


def reply_of(frames: list[dict[str, Any]]) -> dict[str, Any]:
    [done] = [f for f in of_type(frames, "message_done") if f["message"]["role"] == "assistant"]
    return dict(done["message"])


@sync_to_async
def saved_gm(session: Session) -> dict[str, Any]:
    session.refresh_from_db()
    return dict(session.state["gm"])


@sync_to_async
def character_count(session: Session, user: Any, character: str, zone: str = "UTC") -> int:
    player = Player(user.pk, time_zone=zone)
    subject = character_subject(player, world_of(session), character)
    return sum(DailyActionCount.objects.filter(subject=subject).values_list("count", flat=True))


# --- engine moves --------------------------------------------------------------------------------


async def test_go_north_is_an_engine_move_with_no_model_call_and_its_state_is_kept(
    alice, gm_version, live_openai
):
    session = await gm_session(alice, gm_version, mode="live")
    client = await connect(session, alice)
    assert (await client.until("scene"))["place"]["id"] == "square"
    north = await act(client, type="send", text="go north")
    reply = reply_of(north)
    assert reply["content"].startswith("You go north to The Wayfarer's Rest.")
    assert reply["usage"]["source"] == "engine" and reply["usage"]["cost"] == 0
    assert of_type(north, "scene")[-1]["place"]["id"] == "the-wayfarer"
    assert (await saved_gm(session))["characters"]["ada"]["location"] == "the-wayfarer"
    south = await act(client, type="send", text="go south")  # from the saved state
    assert reply_of(south)["content"].startswith("You go south to Market Square.")
    await client.close()
    assert live_openai.requests == []
    assert await character_count(session, alice, "ada") == 0  # engine moves are free


async def test_the_scene_lists_the_ways_and_points_the_character_can_click(alice, gm_version):
    session = await gm_session(alice, gm_version, character="ren")
    client = await connect(session, alice)
    scene = await client.until("scene")
    await client.close()
    assert scene["character"] == {"id": "ren", "name": "Ren Ashby"}
    assert scene["place"] == {"id": "the-wayfarer", "name": "The Wayfarer's Rest"}
    assert [(w["direction"], w["to"], w["locked"]) for w in scene["ways"]] == [
        ("south", "square", False),
        ("down", "cellar", True),
    ]
    assert [p["id"] for p in scene["points"]] == ["bar", "hearth"]  # the trapdoor is hidden
    assert scene["pending"] is None


async def test_clicking_an_exit_moves_the_character_and_a_point_looks_at_it(alice, gm_version):
    session = await gm_session(alice, gm_version, character="ren")
    client = await connect(session, alice)
    await client.until("scene")
    went = await act(client, type="action", action_id="click:location:square")
    assert not [f for f in of_type(went, "message_done") if f["message"]["role"] == "user"]
    assert reply_of(went)["usage"]["source"] == "engine"
    assert of_type(went, "scene")[-1]["place"]["id"] == "square"
    looked = await act(client, type="action", action_id="click:point:well")
    assert "well" in reply_of(looked)["content"].lower()
    await client.close()
    assert (await saved_gm(session))["characters"]["ren"]["location"] == "square"


# --- checks and dice -----------------------------------------------------------------------------


async def test_a_risky_action_ends_with_a_pending_check(alice, gm_version):
    session = await gm_session(alice, gm_version)
    client = await connect(session, alice)
    frames = await act(client, type="send", text="climb the well")
    [pending] = of_type(frames, "check-pending")
    await client.close()
    assert reply_of(frames)["content"] == CLIMB
    assert reply_of(frames)["usage"]["source"] == "model"  # the offline master asked (issue 33)
    assert pending == {
        "type": "check-pending",
        "verb": "climb",
        "check": "athletics",
        "label": "Athletics",
        "dc": 15,
        "target": None,
    }
    assert of_type(frames, "scene")[-1]["pending"]["dc"] == 15
    assert "Roll" not in reply_of(frames)["choices"]  # the Roll button stands for it
    assert not of_type(frames, "roll-result")
    again = await connect(session, alice)  # a reloaded page shows the Roll button again
    assert (await again.until("check-pending")) == pending
    await again.close()


async def roll_after_climbing(session: Session, user: Any) -> list[dict[str, Any]]:
    client = await connect(session, user)
    await act(client, type="send", text="climb the well")
    frames = await act(client, type="roll")
    await client.close()
    return frames


async def test_the_roll_frame_sends_the_breakdown_then_the_narration(alice, gm_version):
    session = await gm_session(alice, gm_version)
    frames = await roll_after_climbing(session, alice)
    kinds = [f["type"] for f in frames]
    assert kinds.index("roll-result") < kinds.index("message_start")
    [roll] = of_type(frames, "roll-result")[0]["rolls"]
    face = roll["faces"][0]
    assert roll["die"] == "d20" and roll["dc"] == 15 and roll["label"] == "Athletics"
    assert roll["modifiers"] == [{"source": "strength", "value": 2, "label": "Strength"}]
    assert roll["total"] == face + 2
    assert roll["outcome"] == ("success" if face + 2 >= 15 else "failure")
    assert "hidden" not in roll
    reply = reply_of(frames)
    assert reply["content"].startswith(f"Athletics: d20 {face} + 2 = {face + 2} vs DC 15")
    assert of_type(frames, "scene")[-1]["pending"] is None
    assert not of_type(frames, "check-pending")
    assert (await saved_gm(session))["pending"] == {}


async def test_the_same_dice_seed_rolls_the_same_dice(alice, gm_version):
    rolls = []
    for _ in range(2):
        session = await gm_session(alice, gm_version, seed=11)
        rolls.append(of_type(await roll_after_climbing(session, alice), "roll-result"))
    assert rolls[0] == rolls[1]


@pytest.mark.parametrize("typed", ["Roll", "roll", "tirar", "掷骰"])
async def test_typing_roll_while_a_check_waits_rolls_like_the_roll_button(alice, gm_version, typed):
    by_button = await roll_after_climbing(await gm_session(alice, gm_version, seed=11), alice)
    session = await gm_session(alice, gm_version, seed=11)
    client = await connect(session, alice)
    await act(client, type="send", text="climb the well")
    by_word = await act(client, type="send", text=typed)
    await client.close()
    assert of_type(by_word, "roll-result") == of_type(by_button, "roll-result") != []
    assert reply_of(by_word)["content"] == reply_of(by_button)["content"]
    assert (await saved_gm(session))["pending"] == {}


async def test_a_hidden_roll_shows_no_button_and_no_breakdown(alice, gm_version):
    session = await gm_session(alice, gm_version)
    client = await connect(session, alice)
    frames = await act(client, type="send", text="search")
    await client.close()
    assert not of_type(frames, "roll-result") and not of_type(frames, "check-pending")
    assert of_type(frames, "scene")[-1]["pending"] is None
    assert "d20" not in reply_of(frames)["content"]
    assert (await saved_gm(session))["dice"]["counter"] == 1  # the server did roll


async def test_rolling_with_nothing_pending_is_answered_at_no_cost(alice, gm_version):
    session = await gm_session(alice, gm_version)
    client = await connect(session, alice)
    frames = await act(client, type="roll")
    await client.close()
    assert not of_type(frames, "roll-result")
    assert reply_of(frames)["usage"]["source"] == "engine"


async def test_a_players_directive_in_a_game_master_world_changes_nothing(alice):
    data = gm_data()
    data["variables"] = [{"id": "gold", "name": "Gold", "type": "number", "defaultValue": 5}]
    version = await sync_to_async(publish_gm)(alice, data)
    session = await gm_session(alice, version)
    client = await connect(session, alice)
    frames = await act(client, type="send", text="I hum a tune [gold: +50]")
    await client.close()
    reply = reply_of(frames)
    assert "[" not in reply["content"] and reply["changes"] == []
    assert of_type(frames, "state")[-1]["values"] == {"gold": 5}


# --- the daily quota of each character -----------------------------------------------------------


async def test_engine_moves_and_questions_do_not_count_toward_the_quota(
    alice, small_quota, live_openai
):
    session = await gm_session(alice, small_quota, mode="live")
    client = await connect(session, alice)
    for text in ("go north", "go south", "take"):
        assert reply_of(await act(client, type="send", text=text))["model"] == "test-model"
    live = reply_of(await act(client, type="send", text="I hum an old song"))
    await client.close()
    assert live["usage"]["source"] == "model" and live_openai.requests
    assert await character_count(session, alice, "ada") == 1


async def test_a_failed_turn_does_not_count_toward_the_quota(
    alice, small_quota, live_openai, settings
):
    settings.FABULA_PROVIDER_RETRIES = 0
    live_openai.script([Fault("500")])
    session = await gm_session(alice, small_quota, mode="live")
    client = await connect(session, alice)
    await client.send(type="send", text="I hum an old song")
    assert (await client.settle())["type"] == "message_failed"
    assert await character_count(session, alice, "ada") == 0
    live = reply_of(await act(client, type="send", text="I hum an old song"))
    await client.close()
    assert live["model"] == "test-model" and live["usage"]["source"] == "model"
    assert await character_count(session, alice, "ada") == 1


async def test_past_the_quota_the_character_plays_offline_until_midnight_in_the_players_zone(
    alice, small_quota, live_openai
):
    zone = zone_on_another_day()
    session = await gm_session(alice, small_quota, mode="live")
    client = await connect(session, alice, zone)
    await act(client, type="send", text="I hum an old song")
    asked = len(live_openai.requests)
    frames = await act(client, type="send", text="I whistle")
    await client.close()
    tomorrow = timezone.now().astimezone(ZoneInfo(zone)).date() + timedelta(days=1)
    [notice] = [f for f in of_type(frames, "notification") if f["style"] == "quota"]
    assert notice["message"] == NOTICE.format(date=tomorrow.isoformat(), zone=zone)
    assert reply_of(frames)["model"] == "offline"
    assert len(live_openai.requests) == asked
    today = tomorrow - timedelta(days=1)
    subject = character_subject(Player(alice.pk, time_zone=zone), await world(session), "ada")
    counted = await sync_to_async(DailyActionCount.objects.get)(subject=subject)
    assert (counted.day, counted.count) == (today, 1)  # the player's day, not UTC's
    again = await connect(session, alice, zone)
    joined = await again.until("notification")
    await again.close()
    assert joined["message"] == notice["message"]  # said on connecting, before any action


def zone_on_another_day() -> str:
    """A zone whose date is not UTC's right now (UTC+14 from 10:00 UTC, UTC-12 before 12:00),
    so a quota counted on the UTC day cannot pass for the player's."""
    return "Pacific/Kiritimati" if timezone.now().hour >= 11 else "Etc/GMT+12"


@sync_to_async
def world(session: Session) -> Any:
    return world_of(session)


async def test_each_character_of_each_player_has_its_own_quota(
    alice, bob, small_quota, live_openai
):
    ada = await gm_session(alice, small_quota, mode="live")
    client = await connect(ada, alice)
    await act(client, type="send", text="I hum an old song")
    await client.close()
    other_ada = await gm_session(alice, small_quota, mode="live")
    ren = await gm_session(alice, small_quota, character="ren", mode="live")
    bobs_ada = await gm_session(bob, small_quota, mode="live")
    models = []
    for session, user in ((other_ada, alice), (ren, alice), (bobs_ada, bob)):
        client = await connect(session, user)
        models.append(reply_of(await act(client, type="send", text="I hum"))["model"])
        await client.close()
    assert models == ["offline", "test-model", "test-model"]


@pytest.mark.parametrize(
    ("sent", "zone"),
    [
        ("Europe/Madrid", "Europe/Madrid"),
        ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
        ("Etc/GMT+5", "Etc/GMT+5"),
        ("Mars/Olympus_Mons", "UTC"),
        ("../../etc/passwd", "UTC"),
        ("", "UTC"),
        (None, "UTC"),
    ],
)
def test_the_players_time_zone_is_checked_against_the_zone_database(sent, zone):
    assert player_zone(sent) == zone


# --- starting: whom the player plays -------------------------------------------------------------


def test_the_start_page_lets_the_player_choose_a_character(client, alice, gm_version):
    client.force_login(alice)
    page = client.get(f"/play/start/{gm_version.pk}/").content.decode()
    assert '<option value="ren"' in page and '<option value="ada"' in page
    response = client.post(f"/play/start/{gm_version.pk}/", {"mode": "offline", "character": "ada"})
    session = Session.objects.get(owner=alice)
    assert response.status_code == 302 and session.character_id == "ada"
    refused = client.post(f"/play/start/{gm_version.pk}/", {"mode": "offline", "character": "zed"})
    assert refused.status_code == 400 and Session.objects.count() == 1


def test_a_guest_preview_chooses_a_character_too(gm_version):
    http = HttpClient()
    assert '<option value="ada"' in http.get(f"/play/preview/{gm_version.pk}/").content.decode()
    http.post(f"/play/preview/{gm_version.pk}/", {"character": "ren"})
    assert Session.objects.get().character_id == "ren"


def test_the_play_page_of_a_game_master_session_has_its_controls(client, alice, gm_version):
    session = start_session(alice, gm_version, mode="offline")
    client.force_login(alice)
    page = client.get(f"/play/{session.pk}/").content.decode()
    assert "data-gm-roll" in page and "data-gm-scene" in page
    assert '"characterName": "Ren Ashby"' in page  # no choice made: the first character


def test_a_plain_session_has_no_game_master_controls(client, alice, play_session):
    client.force_login(alice)
    page = client.get(f"/play/{play_session.pk}/").content.decode()
    assert "data-gm-roll" not in page and '"gameMaster": null' in page


# --- the master's turn on the play page (issue "Game master II" §8) -----------------------------

MASTER_SAYS = "You hum; Hilda smiles at the tune."


def master_script(server: Any) -> None:
    """One lookup, then the closure: the master's whole turn, as the model sends it."""
    from tests.support.model_server import Reply

    lookup = {"name": "lookup_rule", "arguments": {"topic": "death-saves"}}
    close = {
        "name": "log_event",
        "arguments": {"narration": MASTER_SAYS, "suggestions": ["Hum louder", "Ask for a drink"]},
    }
    server.script([Reply(text="", tool_calls=(lookup,)), Reply(text="", tool_calls=(close,))])


async def test_the_creator_sees_what_the_engine_did_and_the_cost_over_the_loop(
    alice, gm_version, live_openai
):
    master_script(live_openai)
    session = await gm_session(alice, gm_version, mode="live")
    client = await connect(session, alice)
    frames = await act(client, type="send", text="I hum an old song")
    await client.close()
    reply = reply_of(frames)
    streamed = "".join(f["text"] for f in of_type(frames, "delta"))
    assert streamed == reply["content"] == MASTER_SAYS
    assert reply["choices"] == ["Hum louder", "Ask for a drink"]
    assert [(t["name"], t["ok"]) for t in reply["tools"]] == [
        ("lookup_rule", True),
        ("log_event", True),
    ]
    assert reply["tools"][0]["arguments"] == {"topic": "death-saves"}
    assert reply["tools"][0]["result"]["ok"] is True
    assert len(live_openai.requests) == 2
    assert reply["usage"]["source"] == "model"
    assert reply["usage"]["input_tokens"] > 0 and reply["usage"]["cache_read_tokens"] > 0


async def test_another_player_never_gets_the_tool_traffic(bob, gm_version, live_openai):
    master_script(live_openai)
    session = await gm_session(bob, gm_version, mode="live")
    client = await connect(session, bob)
    frames = await act(client, type="send", text="I hum an old song")
    await client.close()
    assert reply_of(frames)["content"] == MASTER_SAYS
    assert "tools" not in reply_of(frames)
    assert "lookup_rule" not in json.dumps(frames) and "death-saves" not in json.dumps(frames)
    saved = await sync_to_async(lambda: list(session.messages.values_list("tools", flat=True)))()
    assert all(tools == [] for tools in saved)


# --- a Spanish or Chinese page on the English demo world (issue 33 §3) ---------------------------


async def connect_in(session: Session, user: Any, language: str) -> Client:
    """The play socket of a browser whose page is in ``language`` (its Accept-Language)."""
    headers = [(b"accept-language", language.encode())]
    ws = WebsocketCommunicator(consumer_app(), f"/ws/play/{session.pk}/", headers=headers)
    ws.scope["user"] = user
    ws.scope["session"] = SimpleNamespace(session_key=None)
    connected, _ = await ws.connect()
    assert connected
    client = Client(ws)
    assert (await client.receive())["type"] == "history"
    return client


@pytest.mark.parametrize(
    ("language", "typed", "joined", "went", "said"),
    [
        (
            "es",
            "voy al sur",
            [("sur", "Plaza del Mercado"), ("abajo", "La Bodega del Caminante")],
            ("Plaza del Mercado", "norte", "La Posada del Caminante"),
            "Vas hacia el sur, a Plaza del Mercado.",
        ),
        (
            "zh-hans",
            "往南走",
            [("南", "集市广场"), ("下", "客栈地窖")],
            ("集市广场", "北", "旅人客栈"),
            "你往南走，来到集市广场。",
        ),
    ],
)
async def test_the_scene_bar_and_the_chips_speak_the_players_language(
    alice, gm_version, language, typed, joined, went, said
):
    session = await gm_session(alice, gm_version, character="ren")
    client = await connect_in(session, alice, language)
    scene = await client.until("scene")
    assert [(w["label"], w["name"]) for w in scene["ways"]] == joined
    frames = await act(client, type="send", text=typed)
    await client.close()
    reply = reply_of(frames)
    assert reply["content"].startswith(said)
    after = of_type(frames, "scene")[-1]
    assert after["place"]["name"] == went[0]
    assert (after["ways"][0]["label"], after["ways"][0]["name"]) == went[1:]
    english = ("Market Square", "Wayfarer", "notice board", "Read the", "Go ")
    shown = json.dumps([reply["content"], reply["choices"], after], ensure_ascii=False)
    assert not [word for word in english if word in shown], shown
