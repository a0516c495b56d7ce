"""A game-master world never shows nor applies the master's bracket directives (issue 32 finding
11): not in the streamed deltas, the reply, its suggestions, the stored message or any frame."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from play.models import Message
from tests.play.test_gm_play import act, connect, gm_data, gm_session, of_type, publish_gm, reply_of

pytestmark = pytest.mark.django_db(transaction=True)

SHOWN = "You find a purse in the straw."


def bracketed_master(server: Any) -> None:
    """The master's whole turn, a directive in its text, its narration and a suggestion."""
    from tests.support.model_server import Reply

    close = {
        "name": "log_event",
        "arguments": {
            "narration": f"{SHOWN} [gold: +999]",
            "suggestions": ["Count the coins [gold: +5]", "Hum louder"],
        },
    }
    server.script([Reply(text="[gold: +999]", tool_calls=(close,))])


async def test_no_frame_and_no_stored_message_carries_the_masters_directive(
    alice, bob, live_openai
):
    data = gm_data()
    data["variables"] = [{"id": "gold", "name": "Gold", "type": "number", "defaultValue": 5}]
    version = await sync_to_async(publish_gm)(alice, data)
    bracketed_master(live_openai)
    session = await gm_session(bob, version, mode="live")  # a player, not the creator
    client = await connect(session, bob)
    frames = await act(client, type="send", text="I hum an old song")
    await client.close()
    reply = reply_of(frames)
    streamed = "".join(f["text"] for f in of_type(frames, "delta"))
    assert streamed == reply["content"] == SHOWN
    assert reply["choices"] == ["Count the coins", "Hum louder"]
    assert "[gold" not in json.dumps([f for f in frames if f["type"] != "history"])
    stored = await sync_to_async(
        lambda: list(Message.objects.filter(session=session).values_list("content", flat=True))
    )()
    assert SHOWN in stored and not any("[gold" in text for text in stored)
    assert of_type(frames, "state")[-1]["values"] == {"gold": 5}
