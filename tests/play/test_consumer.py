"""The play websocket, frame by frame, through channels' WebsocketCommunicator."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from play.models import Checkpoint, Message, Session
from play.sessions import STALE_ERROR
from tests.play.conftest import connect, guest_store
from tests.support.model_server import Fault, Reply

pytestmark = pytest.mark.django_db(transaction=True)


def deltas_of(frames: list[dict[str, Any]], message_id: int) -> list[dict[str, Any]]:
    return [f for f in frames if f["type"] == "delta" and f["message_id"] == message_id]


@sync_to_async
def reload(model: Any) -> Any:
    model.refresh_from_db()
    return model


@sync_to_async
def messages_of(session: Session) -> list[Message]:
    return list(session.messages.all())


# --- connecting ------------------------------------------------------------------------------


async def test_owner_gets_history_with_greeting_and_state(alice, play_session):
    client, history = await connect(play_session.pk, alice)
    assert history["type"] == "history"
    assert history["session"]["id"] == str(play_session.pk)
    assert history["session"]["greeting_count"] == 2
    [greeting] = history["messages"]
    assert greeting["content"] == "Dawn over the salt, User."
    assert greeting["is_greeting"] is True
    assert history["state"]["values"] == {"health": 100, "gold": 5}
    assert history["checkpoints"] == []
    assert history["running"] is None
    await client.close()


async def test_another_users_session_is_closed_with_4403(bob, play_session):
    _, closed = await connect(play_session.pk, bob)
    assert closed == {"type": "websocket.close", "code": 4403}


async def test_anonymous_visitor_is_closed_with_4403(play_session):
    _, closed = await connect(play_session.pk, None)
    assert closed["code"] == 4403


async def test_unknown_session_is_closed_with_4404(alice):
    _, closed = await connect(uuid.uuid4(), alice)
    assert closed["code"] == 4404
    _, closed = await connect("not-a-session", alice)
    assert closed["code"] == 4404


async def test_guest_reaches_only_their_own_preview(version):
    from play.sessions import start_session

    mine, theirs = await sync_to_async(guest_store)(), await sync_to_async(guest_store)()
    session = await sync_to_async(start_session)(
        None, version, mode="offline", guest_key=mine.session_key
    )
    client, history = await connect(session.pk, None, mine)
    assert history["type"] == "history"
    assert history["session"]["is_guest"] is True
    await client.close()
    _, closed = await connect(session.pk, None, theirs)
    assert closed["code"] == 4403


# --- malformed frames ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "field", "error"),
    [
        ("not json", "$", "$: not valid JSON"),
        ("[1, 2]", "$", "$: must be a JSON object"),
        ("{}", "type", "type: is required"),
        ('{"type": "dance"}', "type", "type: unknown frame type 'dance'"),
        ('{"type": "send"}', "text", "text: is required"),
        ('{"type": "send", "text": ""}', "text", "text: string should have at least 1 character"),
        (
            '{"type": "swipe", "message_id": 1, "direction": "up"}',
            "direction",
            "direction: input should be 'left' or 'right'",
        ),
        ('{"type": "edit", "message_id": "x", "content": "a"}', "message_id", "message_id: "),
        ('{"type": "switch_greeting", "index": -1}', "index", "index: "),
        ('{"type": "checkpoint_restore"}', "checkpoint_id", "checkpoint_id: is required"),
    ],
)
async def test_malformed_frame_gets_error_naming_the_field(alice, play_session, raw, field, error):
    client, _ = await connect(play_session.pk, alice)
    await client.send_text(raw)
    reply = await client.receive()
    assert reply["type"] == "error"
    assert reply["field"] == field
    assert reply["error"].startswith(error)
    await client.send(type="sync")  # the socket is still alive
    assert (await client.receive())["type"] == "history"
    await client.close()


# --- turns -----------------------------------------------------------------------------------


async def test_send_streams_deltas_then_the_saved_message(alice, play_session):
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="I open the door")
    user = await client.until("message_done")
    assert user["message"]["role"] == "user"
    assert user["message"]["content"] == "I open the door"
    start = await client.until("message_start")
    reply_id = start["message"]["id"]
    assert start["message"]["status"] == "streaming"
    done = await client.settle()
    deltas = deltas_of(client.frames, reply_id)
    assert [d["first_seq"] for d in deltas] == [1] + [d["seq"] + 1 for d in deltas[:-1]]
    assert "".join(d["text"] for d in deltas) == done["message"]["content"]
    assert done["message"]["content"] == "You open the door. Nothing changes."
    assert done["message"]["status"] == "complete"
    state = await client.until("state")
    assert state["values"] == {"health": 100, "gold": 5}
    assert state["turn"] == 1
    choices = await client.until("choices")
    assert 2 <= len(choices["choices"]) <= 3
    await client.close()


async def test_second_send_while_a_turn_runs_gets_busy(alice, play_session, live_openai):
    live_openai.script([Reply(text="slow " * 30, chunk_size=5, delay=0.02)])
    await sync_to_async(Session.objects.filter(pk=play_session.pk).update)(mode="live")
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="first")
    start = await client.until("message_start")
    await client.send(type="send", text="second")
    busy = await client.until("busy")
    assert busy["frame"] == {"type": "send", "text": "second"}
    assert busy["message_id"] == start["message"]["id"]
    await client.send(type="edit", message_id=start["message"]["id"], content="x")
    assert (await client.until("busy"))["frame"]["type"] == "edit"
    await client.settle()
    users = [m for m in await messages_of(play_session) if m.role == "user"]
    assert [m.content for m in users] == ["first"]
    await client.close()


async def test_regenerate_adds_a_swipe_and_swiping_restores_each_snapshot(
    alice, play_session, live_openai
):
    live_openai.script([Reply(text="You find coins. [gold: +3]"), Reply(text="Nothing here.")])
    await sync_to_async(Session.objects.filter(pk=play_session.pk).update)(mode="live")
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="I search the crate")
    first = await client.settle()
    assert (await client.until("state"))["values"]["gold"] == 8
    await client.send(type="regenerate")
    second = await client.settle()
    assert second["message"]["id"] == first["message"]["id"]
    assert [s["content"] for s in second["message"]["swipes"]] == [
        "You find coins.",
        "Nothing here.",
    ]
    assert second["message"]["active_swipe"] == 1
    assert (await client.until("state"))["values"]["gold"] == 5
    await client.send(type="swipe", message_id=first["message"]["id"], direction="left")
    swiped = await client.until("message_done")
    assert swiped["message"]["content"] == "You find coins."
    assert (await client.until("state"))["values"]["gold"] == 8
    await client.send(type="swipe", message_id=first["message"]["id"], direction="left")
    assert (await client.until("error"))["error"] == "This is the first swipe."
    await client.close()


async def test_swipe_right_past_the_last_swipe_writes_a_new_one(alice, play_session):
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="I wait")
    done = await client.settle()
    await client.send(type="swipe", message_id=done["message"]["id"], direction="right")
    again = await client.settle()
    assert len(again["message"]["swipes"]) == 2
    await client.close()


async def test_continue_appends_to_the_last_reply(alice, play_session, live_openai):
    live_openai.script([Reply(text="The door opens."), Reply(text=" Beyond it, stairs.")])
    await sync_to_async(Session.objects.filter(pk=play_session.pk).update)(mode="live")
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="I push")
    first = await client.settle()
    await client.send(type="continue")
    start = await client.until("message_start")
    assert start["continuing"] is True
    assert start["message"]["id"] == first["message"]["id"]
    done = await client.settle()
    assert done["message"]["content"] == "The door opens. Beyond it, stairs."
    assert live_openai.requests[-1].body["messages"][-1]["content"] == "The door opens."
    await client.close()


async def test_stop_keeps_the_text_so_far_without_its_directives(alice, play_session, live_openai):
    text = "You run. [health: -50] " + "And run " * 40
    live_openai.script([Reply(text=text, chunk_size=8, delay=0.03)])
    await sync_to_async(Session.objects.filter(pk=play_session.pk).update)(mode="live")
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="I flee")
    start = await client.until("message_start")
    while len(deltas_of(client.frames, start["message"]["id"])) < 4:
        await client.receive()
    await client.send(type="stop")
    done = await client.settle()
    assert done["message"]["stopped"] is True
    assert done["message"]["content"].startswith("You run.")
    assert len(done["message"]["content"]) < len("You run. " + "And run " * 40)
    assert (await client.until("state"))["values"]["health"] == 100  # apply_on_stop is off
    await reload(play_session)
    assert play_session.state["values"]["health"] == 100
    await client.send(type="stop")
    assert (await client.until("error"))["error"] == "No reply is being written right now."
    await client.close()


async def test_a_stop_while_the_model_reads_the_prompt_ends_the_turn_at_once(
    alice, play_session, live_openai
):
    """A local model can read a long prompt for minutes before its first token: Stop pressed
    then ends the turn now, with nothing applied, and the next send plays."""
    live_openai.script([Fault("stall_before_first_token", seconds=30), Reply(text="Again.")])
    await sync_to_async(Session.objects.filter(pk=play_session.pk).update)(mode="live")
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="I tell a very long story")
    while (await client.receive())["type"] != "message_done":
        pass  # the player's own message: the turn is running, no token yet
    await client.send(type="stop")
    done = await client.settle(timeout=10)
    assert done["type"] == "message_failed" or done["message"]["stopped"] is True
    await reload(play_session)
    assert play_session.state["values"]["health"] == 100
    await client.send(type="send", text="I wait")
    again = await client.settle()
    assert again["type"] == "message_done" and again["message"]["content"] == "Again."
    await client.close()


async def test_action_fires_its_rule_without_a_reply(alice, play_session):
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="action", action_id="open-chest")
    state = await client.until("state")
    assert state["values"]["gold"] == 15
    assert state["changes"] == [{"variableId": "gold", "path": [], "old": 5, "new": 15}]
    assert await client.quiet()
    assert len(await messages_of(play_session)) == 1  # still only the greeting
    await client.close()


async def test_action_with_text_is_sent_and_answered(alice, play_session):
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="action", action_id="open-chest", text="I open the chest")
    user = await client.until("message_done")
    assert user["message"]["content"] == "I open the chest"
    done = await client.settle()
    assert done["message"]["content"] == "You open the chest. Nothing changes."
    assert (await client.until("state"))["values"]["gold"] == 15
    await client.close()


# --- changing messages -----------------------------------------------------------------------


async def test_edit_replaces_the_content_for_every_socket(alice, play_session):
    client, history = await connect(play_session.pk, alice)
    other, _ = await connect(play_session.pk, alice)
    greeting_id = history["messages"][0]["id"]
    await client.send(type="edit", message_id=greeting_id, content="A new dawn.")
    for socket in (client, other):
        edited = await socket.until("message_done")
        assert edited["message"]["content"] == "A new dawn."
    await client.send(type="edit", message_id=999999, content="x")
    error = await client.until("error")
    assert error == {
        "type": "error",
        "error": "This message does not exist in the session.",
        "field": "message_id",
        "frame": {"type": "edit", "message_id": 999999, "content": "x"},
    }
    await client.close()
    await other.close()


async def test_delete_the_last_reply_takes_back_its_state(alice, play_session, live_openai):
    live_openai.script([Reply(text="Coins! [gold: +10]")])
    await sync_to_async(Session.objects.filter(pk=play_session.pk).update)(mode="live")
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="I dig")
    done = await client.settle()
    assert (await client.until("state"))["values"]["gold"] == 15
    await client.send(type="delete", message_id=done["message"]["id"])
    history = await client.until("history")
    assert [m["role"] for m in history["messages"]] == ["assistant", "user"]
    assert history["state"]["values"]["gold"] == 5
    await client.close()


async def test_revert_deletes_later_messages_and_restores_the_snapshot(alice, play_session):
    client, history = await connect(play_session.pk, alice)
    for text in ("I wait", "I wait again"):
        await client.send(type="send", text=text)
        await client.settle()
    await client.send(type="revert", message_id=history["messages"][0]["id"])
    reverted = await client.until("history")
    assert len(reverted["messages"]) == 1
    assert reverted["state"]["turn"] == 0
    await client.close()


async def test_branch_answers_only_the_sender_with_the_new_session(alice, play_session):
    client, history = await connect(play_session.pk, alice)
    await client.send(type="send", text="I wait")
    await client.settle()
    await client.send(type="branch", message_id=history["messages"][0]["id"])
    branched = await client.until("branched")
    branch = await sync_to_async(Session.objects.get)(pk=branched["session_id"])
    assert branched["url"] == f"/play/{branch.pk}/"
    assert len(await messages_of(branch)) == 1
    assert len(await messages_of(play_session)) == 3
    await client.close()


async def test_checkpoints_save_restore_and_delete(alice, play_session):
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="checkpoint_save", name="Before the desert")
    saved = await client.until("checkpoints")
    [checkpoint] = saved["checkpoints"]
    assert checkpoint["name"] == "Before the desert"
    assert checkpoint["message_count"] == 1
    await client.send(type="send", text="I walk")
    await client.settle()
    await client.send(type="checkpoint_restore", checkpoint_id=checkpoint["id"])
    restored = await client.until("history")
    assert len(restored["messages"]) == 1
    assert restored["state"]["turn"] == 0
    await client.send(type="checkpoint_delete", checkpoint_id=checkpoint["id"])
    assert (await client.until("checkpoints"))["checkpoints"] == []
    assert await sync_to_async(Checkpoint.objects.count)() == 0
    await client.send(type="checkpoint_restore", checkpoint_id=checkpoint["id"])
    assert (await client.until("error"))["error"] == "This checkpoint does not exist."
    await client.close()


async def test_switch_greeting_restores_that_greetings_state(alice, play_session):
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="switch_greeting", index=1)
    history = await client.until("history")
    assert history["messages"][0]["content"] == "Dusk falls on the caravan."
    assert history["session"]["greeting_index"] == 1
    assert history["state"]["values"]["gold"] == 0
    await client.send(type="switch_greeting", index=5)
    error = await client.until("error")
    assert error["error"] == "There are 2 greetings; index 5 is out of range."
    assert error["field"] == "index"
    await client.close()


async def test_sync_after_a_message_sends_only_what_came_later(alice, play_session):
    client, history = await connect(play_session.pk, alice)
    await client.send(type="send", text="I wait")
    await client.settle()
    await client.send(type="sync", last_message_id=history["messages"][0]["id"])
    synced = await client.until("history")
    assert synced["since"] == history["messages"][0]["id"]
    assert [m["role"] for m in synced["messages"]] == ["user", "assistant"]
    await client.close()


# --- the turn outlives its socket ------------------------------------------------------------


async def test_reconnect_mid_turn_gets_the_text_so_far_then_live_deltas(
    alice, play_session, live_openai
):
    text = "".join(f"word{i} " for i in range(60))
    live_openai.script([Reply(text=text, chunk_size=6, delay=0.02)])
    await sync_to_async(Session.objects.filter(pk=play_session.pk).update)(mode="live")
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="Tell me")
    start = await client.until("message_start")
    reply_id = start["message"]["id"]
    while len(deltas_of(client.frames, reply_id)) < 5:
        await client.receive()
    await client.close()

    again, history = await connect(play_session.pk, alice)
    running = history["running"]
    assert running["message_id"] == reply_id
    assert running["seq"] >= 5
    assert text.startswith(running["text"])
    done = await again.settle()
    later = deltas_of(again.frames, reply_id)
    assert later[0]["first_seq"] == running["seq"] + 1
    assert running["text"] + "".join(d["text"] for d in later) == done["message"]["content"]
    assert done["message"]["content"] == text.strip()
    await again.close()


async def test_the_turn_is_saved_when_its_socket_is_gone(alice, play_session, live_openai):
    live_openai.script([Reply(text="Alone, the story goes on.", chunk_size=4, delay=0.02)])
    await sync_to_async(Session.objects.filter(pk=play_session.pk).update)(mode="live")
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="Go on")
    await client.until("message_start")
    await client.close()
    again, _ = await connect(play_session.pk, alice)
    done = await again.settle()
    assert done["message"]["content"] == "Alone, the story goes on."
    await again.close()


async def test_a_stale_streaming_message_is_marked_failed_on_connect(alice, play_session):
    stale = await sync_to_async(Message.objects.create)(
        session=play_session, position=1, role="assistant", status="streaming"
    )
    client, history = await connect(play_session.pk, alice)
    failed = history["messages"][-1]
    assert failed["id"] == stale.pk
    assert failed["status"] == "failed"
    assert failed["error"] == STALE_ERROR
    await client.close()


# --- the full ASGI stack ---------------------------------------------------------------------


async def test_the_asgi_app_authenticates_by_session_cookie_and_checks_origin(
    alice, play_session, client
):
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    await sync_to_async(client.force_login)(alice)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    path = f"/ws/play/{play_session.pk}/"
    headers = [(b"cookie", cookie), (b"origin", b"http://testserver"), (b"host", b"testserver")]
    ws = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await ws.connect()
    assert connected
    history = json.loads(await ws.receive_from(5))
    assert history["type"] == "history"
    await ws.disconnect()

    evil = [(b"cookie", cookie), (b"origin", b"http://evil.example")]
    ws = WebsocketCommunicator(application, path, headers=evil)
    connected, _ = await ws.connect()
    assert not connected
