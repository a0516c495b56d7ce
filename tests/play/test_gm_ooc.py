"""The Story Director's line out of character over the play websocket (issue 32, finding 6): a
world with the three directors whose Story Director, seeing canary secrets, tries to pass them
to the player paraphrased, in Spanish and letter-spaced. The player gets the line written from
his own view as an ``ooc`` note; no frame and no stored message holds a canary."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from play.models import Message, Session
from play.payloads import message_dict
from tests.engine.gm.directors.canaries import (
    ECHOES,
    OOC_LINE,
    canary_data,
    leaked,
    turn_replies,
)
from tests.play.test_gm_play import act, connect, gm_session, publish_gm, reply_of
from tests.support.model_server import Reply

pytestmark = pytest.mark.django_db(transaction=True)

ACTIONS = ("Morning, Greta.", "What's fresh today?", "Is the rye still warm?")


def script_the_directors(server: Any) -> None:
    """Each turn: the Game Director's route and account, the sloppy Story Director, the Scene
    Director's words, and the line written for the player."""
    replies = []
    for echo in ECHOES:
        turn = turn_replies(echo)
        game = turn["game"][0]
        replies += [
            Reply(text=game["text"], tool_calls=tuple(game["tool_calls"])),
            Reply(text=turn["story"][0]["text"]),
            Reply(text=turn["scene"][0]["text"]),
            Reply(text=turn["ooc"][0]["text"]),
        ]
    server.script(replies)


@sync_to_async
def stored(session: Session) -> list[str]:
    """What the player can read of each stored message (its state snapshot stays on the
    server: play.payloads.message_dict)."""
    rows = Message.objects.filter(session=session).order_by("position")
    return [json.dumps(message_dict(m), ensure_ascii=False) for m in rows]


async def test_no_frame_or_stored_message_holds_a_canary(alice, live_openai):
    version = await sync_to_async(publish_gm)(alice, canary_data())
    script_the_directors(live_openai)
    session = await gm_session(alice, version, character="mira", mode="live")
    client = await connect(session, alice)
    frames: list[dict[str, Any]] = []
    for action in ACTIONS:
        played = await act(client, type="send", text=action)
        notes = [f for f in played if f["type"] == "notification" and f.get("style") == "ooc"]
        assert [n["message"] for n in notes] == [OOC_LINE]
        frames += played
    await client.close()
    assert "Rye or barley?" in json.dumps(reply_of(played), ensure_ascii=False)
    assert len(live_openai.requests) == 4 * len(ACTIONS)
    assert [f for f in frames if leaked(json.dumps(f, ensure_ascii=False))] == []
    assert [m for m in await stored(session) if leaked(m)] == []
