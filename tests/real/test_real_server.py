"""The real-server tier (issue 37 §6): llama.cpp's ``llama-server --jinja`` serving SmolLM2-135M
on loopback, played through the web app's websocket: 20 plain turns of the Lantern demo and 20
Brackenford actions. Every turn completes or fails cleanly (no traceback), nothing internal
reaches the player (no prompt block, no directive, raw or cut off), a stop ends a turn and the
next one plays, and the state changes only by what was parsed (a plain reply's directives, the
master's tool results or an engine move). Timings per turn go to ``.real/timings.json``.

    make test-real
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from play.models import Session
from play.sessions import start_session
from studio.publishing import publish_world
from studio.worlds import import_world
from tests.play.conftest import Client
from tests.play.test_gm_play import connect, gm_data, gm_session
from tests.real.conftest import Timings
from tests.real.serve import LlamaServer

# A whole tier of live turns on a CPU model: pyproject's 120 s per test guards the fast tiers,
# not this one; each turn is bounded by TURN_TIMEOUT instead.
pytestmark = [
    pytest.mark.real,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(0),
]

TURNS = int(os.environ.get("FABULA_REAL_TURNS", "20"))  # fewer for a quick look at the timings
TURN_TIMEOUT = 1800.0  # a cold master turn on two cores, tool rounds included
PLAIN_DEMO = "studio/fixtures/demo_world.json"
INTERNAL = re.compile(
    r"</?(current-state|persona|behavior-rules|directive-syntax|audio-tracks|story-summary"
    r"|session-memory|think|updatevariable|synopsis)\b|\[\s*(health|lantern-oil|location"
    r"|has-silver-key|inventory|gold|audio)\s*[:.]",
    re.IGNORECASE,
)
PLAIN_TURNS = [
    "I step inside and shake the rain off my cloak.",
    "I ask the innkeeper for a room.",
    "I look at the fire. Why is it blue?",
    "I order a bowl of stew.",
    "I ask who else is staying tonight.",
    "I check how much oil my lantern has left.",
    "I listen to the wind at the shutters.",
    "I ask about the Hollow Wood.",
    "I show the innkeeper my silver key.",
    "I sit by the window and watch the road.",
    "I ask if anyone has gone missing lately.",
    "I refill my lantern.",
    "I go up to my room.",
    "I search the room for anything odd.",
    "I lie down and try to sleep.",
    "A noise wakes me. I get up.",
    "I open the door a crack.",
    "I call out: who is there?",
    "I go down the stairs with my lantern.",
    "I step out onto the road.",
]
GM_ACTIONS = [
    "look around",
    "Hilda, do you have a room for tonight?",
    "I ask Hilda what news there is.",
    "I order an ale.",
    "go south",
    "look around",
    "I ask the people here about the old mill.",
    "I look at the notice board.",
    "I greet whoever is nearest.",
    "go north",
    "I ask Hilda about strangers on the road.",
    "I sit by the fire and listen.",
    "I ask Hilda what she needs help with.",
    "I offer to help.",
    "I check what I carry.",
    "go south",
    "I buy some bread.",
    "I ask about work in town.",
    "I thank everyone and rest a while.",
    "look around",
]


async def turn(client: Client, timings: Timings, tier: str, **frame: Any) -> dict[str, Any]:
    """Send one frame; read to the end of its turn; check it; record its timings."""
    started = time.monotonic()
    first_status = first_delta = None
    deltas: list[str] = []
    start = len(client.frames)
    await client.send(**frame)
    while True:
        got = await client.receive(TURN_TIMEOUT)
        if got["type"] == "status" and first_status is None:
            first_status = time.monotonic() - started
        if got["type"] == "delta":
            first_delta = first_delta or time.monotonic() - started
            deltas.append(got["text"])
        if got["type"] == "message_failed" or (
            got["type"] == "message_done" and got["message"]["role"] == "assistant"
        ):
            break
    total = time.monotonic() - started
    failed = got["type"] == "message_failed"
    said = (got.get("error") or "") + got["message"]["content"][:200]  # why a turn failed
    timings.add(tier, first_status=first_status, first_delta=first_delta, total=total,
                failed=failed, text=said)  # fmt: skip
    shown = "".join(deltas) + "\n" + got["message"]["content"]
    assert not INTERNAL.search(shown), shown
    if got["type"] == "message_failed":
        assert got["error"] and "Traceback" not in got["error"]
        return {"done": got, "frames": client.frames[start:]}
    state = await client.until("state", timeout=60)
    return {"done": got, "state": state, "frames": client.frames[start:]}


async def stop_mid_turn(client: Client, **frame: Any) -> dict[str, Any]:
    """Send ``frame``, stop as soon as the turn runs (the model is still reading the prompt),
    and return its end."""
    seen: list[str] = []  # the frames' types, for the assertion's message
    await client.send(**frame)
    # The player's own message is saved as the turn starts: stop then, while the model reads the
    # prompt (a plain reply's message_start waits for its first token, and a short reply can be
    # whole before a stop sent at its start arrives).
    while (got := await client.receive(TURN_TIMEOUT))["type"] != "message_done":
        seen.append(got["type"])
    await client.send(type="stop")
    while True:
        got = await client.receive(TURN_TIMEOUT)
        seen.append(got["type"] + (f":{got.get('error')}" if got["type"] == "error" else ""))
        if got["type"] == "message_failed" or (
            got["type"] == "message_done" and got["message"]["role"] == "assistant"
        ):
            return {**got, "seen": seen}


@sync_to_async
def saved_state(session: Session) -> dict[str, Any]:
    session.refresh_from_db()
    return json.loads(json.dumps(session.state))


@sync_to_async
def plain_session(user: Any) -> Session:
    with open(PLAIN_DEMO, encoding="utf-8") as source:
        data = json.load(source)
    data["settings"]["maxTokens"] = 160  # short replies, and some cut inside a directive
    version = publish_world(import_world(user, data))
    return start_session(user, version, mode="live")


async def test_twenty_plain_turns_complete_show_nothing_internal_and_change_only_by_directive(
    alice: Any, real_model: LlamaServer, timings: Timings
) -> None:
    session = await plain_session(alice)
    client = await connect(session, alice)
    before = (await saved_state(session))["values"]
    for text in PLAIN_TURNS[:TURNS]:
        played = await turn(client, timings, "plain", type="send", text=text)
        after = (await saved_state(session))["values"]
        if "state" in played:
            named = {c.get("variableId") for c in played["state"]["changes"]}
            changed = {k for k in after if after.get(k) != before.get(k)}
            assert changed <= named, (changed, played["state"]["changes"])
        else:
            assert after == before  # a failed turn applies nothing
        before = after
    stopped = await stop_mid_turn(client, type="send", text="I tell a very long story.")
    assert stopped["type"] == "message_failed" or stopped["message"]["stopped"], stopped["seen"]
    again = await turn(client, timings, "plain", type="send", text="I wait.")
    assert again["done"]["type"] in ("message_done", "message_failed")
    await client.close()


async def test_twenty_brackenford_actions_complete_show_nothing_internal_and_change_only_by_tools(
    alice: Any, real_model: LlamaServer, timings: Timings
) -> None:
    version = await sync_to_async(lambda: publish_world(import_world(alice, gm_data())))()
    session = await gm_session(alice, version, "ren", mode="live")
    client = await connect(session, alice)
    before = (await saved_state(session))["gm"]
    for text in GM_ACTIONS[:TURNS]:
        played = await turn(client, timings, "master", type="send", text=text)
        after = (await saved_state(session))["gm"]
        message = played["done"]["message"]
        applied = [c for c in message.get("tools") or () if c.get("ok")]
        engine = (message.get("usage") or {}).get("source") == "engine"
        if played["done"]["type"] == "message_failed":
            assert after == before
        elif not applied and not engine:  # no tool did anything: nobody moved, nothing changed
            for name in ("characters", "items", "debts", "pawns"):
                assert _stable(after.get(name)) == _stable(before.get(name)), name
        before = after
    stopped = await stop_mid_turn(client, type="send", text="I ask Hilda for her life story.")
    assert stopped["type"] == "message_failed" or stopped["message"]["stopped"], stopped["seen"]
    assert (await saved_state(session))["gm"]["characters"] == before["characters"]
    again = await turn(client, timings, "master", type="send", text="look around")
    assert again["done"]["type"] in ("message_done", "message_failed")
    await client.close()


def _stable(value: Any) -> Any:
    """What a turn may not change without a tool: where people are, what they hold, hp."""
    if not isinstance(value, dict):
        return value
    keep = ("location", "hp", "resources", "point")
    return {
        key: {k: v for k, v in item.items() if k in keep} if isinstance(item, dict) else item
        for key, item in value.items()
    }
