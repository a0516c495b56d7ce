"""Live master turns over the play websocket against the loopback model server (issue 37 §1–3):
status frames before the narration, a stop that cancels the loop and changes nothing, a server
that only writes text, and what "Test connection" found used by the next turn."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.utils import translation

from play.gm_steps import STEP_WORDS, status_frame
from play.models import ProviderSetting, Session
from play.providers import capability_key
from tests.play.test_gm_play import act, connect, gm_session, of_type, reply_of
from tests.play.test_gm_play import gm_version as gm_version  # the fixture
from tests.play.test_provider_check import own, try_
from tests.support.model_server import WRONG_TYPE, Fault, Reply

pytestmark = pytest.mark.django_db(transaction=True)

CALM = "You hum an old song; the notes drift over the cobbles."
RULE = {"name": "lookup_rule", "arguments": {"topic": "advantage"}}
MOVE = {"name": "move_character", "arguments": {"to": "chapel"}}
NOTE = {"name": "note", "arguments": {"word": "OK"}}


def close(narration: str = CALM) -> dict[str, Any]:
    return {"name": "log_event", "arguments": {"narration": narration}}


@sync_to_async
def saved_state(session: Session) -> dict[str, Any]:
    session.refresh_from_db()
    return dict(session.state)


async def test_status_frames_arrive_before_the_narration_in_player_words(
    alice, gm_version, live_openai
):
    live_openai.script([Reply(tool_calls=(RULE,)), Reply(tool_calls=(close(),))])
    session = await gm_session(alice, gm_version, mode="live")
    client = await connect(session, alice)

    frames = await act(client, type="send", text="I hum an old song")

    kinds = [f["type"] for f in frames]
    statuses = of_type(frames, "status")
    assert [s["step"] for s in statuses] == ["thinking", "rule", "thinking", "writing"]
    assert kinds.index("status") < kinds.index("delta")
    assert statuses[1]["text"] == "Consulting a rule…"
    assert all("lookup_rule" not in s["text"] for s in statuses)
    reply = reply_of(frames)
    assert {s["message_id"] for s in statuses} == {reply["id"]}
    assert reply["content"] == CALM
    await client.close()


async def test_a_stop_mid_master_turn_cancels_it_changes_nothing_and_the_next_action_plays(
    alice, gm_version, live_openai
):
    live_openai.script([Reply(tool_calls=(MOVE,)), Fault("stall_before_first_token", seconds=60)])
    session = await gm_session(alice, gm_version, mode="live")
    client = await connect(session, alice)
    await act(client, type="send", text="look")  # an engine move: the state exists
    before = await saved_state(session)

    await client.send(type="send", text="I hum an old song")
    await client.until("status", step="moving")
    await client.until("status", step="thinking")  # the second model call is waiting
    await client.send(type="stop")
    done = await client.settle()

    assert done["type"] == "message_done" and done["message"]["stopped"] is True
    assert done["message"]["content"] == ""
    after = await saved_state(session)
    assert after["gm"]["characters"]["ada"]["location"] == "square"  # the move never applied
    for state in (before, after):  # each turn seeds the dice afresh (play.dice): not an effect
        del state["gm"]["dice"]
    assert after == before
    live_openai.script([Reply(tool_calls=(close(),))])
    again = reply_of(await act(client, type="send", text="I hum an old song"))
    assert again["content"] == CALM and again["stopped"] is False
    await client.close()


async def test_a_server_that_only_writes_text_gives_a_checked_narration_not_nothing_changes(
    alice, gm_version, live_openai
):
    live_openai.quirk = "text_only"
    live_openai.script([Reply(text="You hum."), Reply(text=CALM, tool_calls=(close(),))])
    session = await gm_session(alice, gm_version, mode="live")
    client = await connect(session, alice)

    reply = reply_of(await act(client, type="send", text="I hum an old song"))

    assert reply["content"] == CALM and "Nothing changes." not in reply["content"]
    forced = live_openai.requests[-1].body
    assert forced["tool_choice"] == {"type": "function", "function": {"name": "log_event"}}
    await client.close()


async def test_test_connection_stores_what_the_server_accepts_and_the_master_uses_it(
    client, alice, gm_version, model_server, settings
):
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True
    model_server.quirk = "ignore_named"  # llama.cpp: logs the wrong type, answers text
    await sync_to_async(own)(alice, model_server.openai_url)
    model_server.script(
        [
            Reply(text="OK"),
            Reply(text="OK", tool_calls=(NOTE,)),  # named: its calls are dropped
            Reply(tool_calls=(NOTE,), chunk_size=3),  # required
            Reply(tool_calls=(NOTE, NOTE)),  # twice
        ]
    )
    await sync_to_async(client.force_login)(alice)

    _, html = await sync_to_async(try_)(client, "test")

    assert WRONG_TYPE in model_server.log
    assert "the game master is made to close each turn (“required”)" in html
    setting = await ProviderSetting.objects.aget(user=alice)
    found = setting.capabilities[capability_key("openai", model_server.openai_url, "test-model")]
    assert found["named_tool_choice"] is False and found["required_tool_choice"] is True
    assert found["parallel_tool_calls"] is True and found["streamed_tool_arguments"] is True

    model_server.script([Reply(text=""), Reply(tool_calls=(close(),))])
    session = await gm_session(alice, gm_version, mode="live")
    socket = await connect(session, alice)
    reply = reply_of(await act(socket, type="send", text="I hum an old song"))

    assert reply["content"] == CALM
    forced = model_server.requests[-1].body
    assert forced["tool_choice"] == "required"
    assert [t["function"]["name"] for t in forced["tools"]] == ["log_event"]
    await socket.close()


@pytest.mark.parametrize(
    ("language", "words"), [("es", "Consultando una regla…"), ("zh-hans", "正在查阅规则…")]
)
def test_a_step_is_said_in_the_players_language(language, words):
    with translation.override(language):
        frame = status_frame(7, "rule")
        unknown = status_frame(7, "reveal_secret")["text"]  # never a tool's own name
        thinking = status_frame(7, "thinking")["text"]
        every = {status_frame(7, step)["text"] for step in STEP_WORDS}
    assert frame == {"type": "status", "message_id": 7, "step": "rule", "text": words}
    assert unknown == thinking
    assert len(every) == len(STEP_WORDS) and not every & set(STEP_WORDS.values())
