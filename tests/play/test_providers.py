"""Turns against the loopback model server through the real openai and anthropic SDKs:
faults, usage and cost, run modes, the user's own key, the daily quota, and that no frame ever
carries a directive or thinking."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from play.models import DailyActionCount, Message, ProviderSetting, Session
from play.providers import save_provider_setting
from play.recordings import export_recording, import_recording
from play.sessions import start_session
from tests.play.conftest import connect
from tests.support.model_server import Fault, ModelServer, Reply

pytestmark = pytest.mark.django_db(transaction=True)

PROTOCOLS = ["live_openai", "live_anthropic"]


@pytest.fixture(params=PROTOCOLS)
def server(request: Any) -> ModelServer:
    server: ModelServer = request.getfixturevalue(request.param)
    return server


async def live_session(user: Any, version: Any, mode: str = "live") -> Session:
    return await sync_to_async(start_session)(user, version, mode=mode, dice_seed=11)


@sync_to_async
def session_state(session: Session) -> dict[str, Any]:
    session.refresh_from_db()
    return dict(session.state)


@sync_to_async
def last_reply(session: Session) -> Message:
    return Message.objects.filter(session=session, role="assistant").order_by("position").last()


async def play(session: Session, user: Any, text: str) -> dict[str, Any]:
    client, _ = await connect(session.pk, user)
    await client.send(type="send", text=text)
    end = await client.settle(timeout=20)
    await client.close()
    return end


# --- faults ----------------------------------------------------------------------------------


async def test_a_429_is_retried_and_the_turn_completes(alice, version, server):
    server.script([Fault("429"), Reply(text="The guard waves you through. [gold: +1]")])
    session = await live_session(alice, version)
    end = await play(session, alice, "I bribe the guard")
    assert end["type"] == "message_done"
    assert end["message"]["content"] == "The guard waves you through."
    assert len(server.requests) == 2
    assert (await session_state(session))["values"]["gold"] == 6


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Fault("500"), "internal error"),
        (Fault("drop_mid_stream", after_chunks=2), "broke off in the middle"),
        (Fault("stall_before_first_token", seconds=3), "took too long to start answering"),
    ],
    ids=["500", "drop-mid-stream", "stall-before-first-token"],
)
async def test_a_failed_turn_saves_a_failed_message_and_keeps_the_state(
    alice, version, server, settings, fault, error
):
    settings.FABULA_PROVIDER_RETRIES = 0
    settings.FABULA_FIRST_TOKEN_TIMEOUT = 0.5
    reply = Reply(text="You are struck. [health: -30] " + "Pain. " * 10, chunk_size=6)
    server.script([Fault(fault.kind, fault.after_chunks, fault.seconds, reply=reply)])
    session = await live_session(alice, version)
    before = await session_state(session)
    end = await play(session, alice, "I attack")
    assert end["type"] == "message_failed"
    assert error in end["error"]  # the engine's wording, shown to the player as is
    assert end["message"]["error"] == end["error"]
    assert end["message"]["status"] == "failed"
    assert end["message"]["content"] == ""
    assert await session_state(session) == before
    reply_row = await last_reply(session)
    assert (reply_row.status, reply_row.error, reply_row.content) == ("failed", end["error"], "")
    assert reply_row.state == before


async def test_regenerating_a_failed_reply_replaces_the_failed_swipe(alice, version, server):
    server.script([Fault("401"), Reply(text="Second try.")])
    session = await live_session(alice, version)
    failed = await play(session, alice, "Hello")
    assert failed["type"] == "message_failed"
    client, _ = await connect(session.pk, alice)
    await client.send(type="regenerate")
    done = await client.settle()
    assert done["message"]["id"] == failed["message_id"]
    assert [s["content"] for s in done["message"]["swipes"]] == ["Second try."]
    await client.close()


# --- what players never see ------------------------------------------------------------------

SECRET_REPLY = (
    "<think>The chest is a mimic; do not tell them.</think>"
    "You lift the lid. [gold: +25] The coins glitter. "
    '<UpdateVariable><JSONPatch>[{"op": "delta", "path": "/health", "value": -5}]'
    "</JSONPatch></UpdateVariable>"
    "[health: -5] Something shifts beneath them."
)


async def test_no_frame_carries_directives_or_thinking(alice, version, server):
    server.script([Reply(text=SECRET_REPLY, chunk_size=3)])
    session = await live_session(alice, version)
    client, _ = await connect(session.pk, alice)
    await client.send(type="send", text="I open the chest")
    done = await client.settle()
    state = await client.until("state")
    await client.send(type="sync")
    await client.until("history")
    wire = json.dumps(client.frames)
    for secret in ("mimic", "<think", "[gold", "+25", "UpdateVariable", "JSONPatch", "[health"):
        assert secret not in wire
    assert done["message"]["content"] == (
        "You lift the lid. The coins glitter. Something shifts beneath them."
    )
    assert state["values"] == {"health": 90, "gold": 30}
    reply = await last_reply(session)
    assert "[gold: +25]" in reply.raw  # kept on the server for debugging only
    await client.close()


# --- usage and cost --------------------------------------------------------------------------


async def test_usage_with_cache_tokens_and_cost_is_saved_per_message(
    alice, version, live_anthropic, settings
):
    settings.FABULA_PRICES = {
        "claude-test": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}
    }
    live_anthropic.script([Reply(text="First."), Reply(text="Second.")])
    session = await live_session(alice, version)
    await play(session, alice, "One")
    end = await play(session, alice, "Two")
    usage = end["message"]["usage"]
    assert usage["cache_read_tokens"] > 0
    assert usage["output_tokens"] == 2
    expected = (
        usage["input_tokens"] * 3
        + usage["output_tokens"] * 15
        + usage["cache_read_tokens"] * 0.3
        + usage["cache_write_tokens"] * 3.75
    ) / 1_000_000
    assert usage["cost"] == pytest.approx(expected, abs=1e-6)
    row = await last_reply(session)
    assert row.model == "claude-test"
    assert row.cache_read_tokens == usage["cache_read_tokens"]


# --- run modes -------------------------------------------------------------------------------


async def test_a_recording_replays_identically_at_zero_cost(alice, bob, version, live_openai):
    live_openai.script(
        [Reply(text="The gate is shut. [gold: +2]"), Reply(text="It opens. [health: -1]")]
    )
    recorded = await live_session(alice, version, mode="record")
    for text in ("I knock", "I push"):
        await play(recorded, alice, text)
    demo = await sync_to_async(export_recording)(
        await sync_to_async(Session.objects.get)(pk=recorded.pk), alice
    )
    assert demo["actions"] == ["I knock", "I push"]
    assert "sk-test" not in json.dumps(demo)
    requests_before = len(live_openai.requests)

    replay = await sync_to_async(import_recording)(bob, demo)
    assert replay.mode == "replay"
    for text in demo["actions"]:
        await play(replay, bob, text)
    assert len(live_openai.requests) == requests_before
    original = await sync_to_async(list)(recorded.messages.values_list("content", "state"))
    replayed = await sync_to_async(list)(replay.messages.values_list("content", "state", "cost"))
    assert [(c, s) for c, s, _ in replayed] == original
    assert all(cost == 0 for _, _, cost in replayed)


async def test_replay_falls_back_to_offline_for_a_missing_exchange(alice, version, live_openai):
    session = await live_session(alice, version, mode="replay")
    end = await play(session, alice, "I look around")
    assert end["message"]["content"] == "You look around. Nothing changes."
    assert live_openai.requests == []


async def test_offline_mode_never_calls_the_model(alice, version, live_openai):
    session = await live_session(alice, version, mode="offline")
    await play(session, alice, "I wait")
    assert live_openai.requests == []


# --- the user's own provider and the quota ---------------------------------------------------


async def test_a_users_own_key_is_encrypted_and_used(alice, version, live_openai, settings):
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True  # the loopback model server
    await sync_to_async(save_provider_setting)(
        alice,
        provider="openai",
        base_url=live_openai.openai_url,
        model="alice-model",
        api_key="sk-alice-secret-9f3a",
    )
    stored = await sync_to_async(ProviderSetting.objects.get)(user=alice)
    assert "sk-alice" not in stored.api_key_encrypted
    assert stored.api_key_hint == "sk-…9f3a"
    assert "secret" not in repr(stored)
    session = await live_session(alice, version)
    await play(session, alice, "Hi")
    request = live_openai.requests[-1]
    assert request.headers["authorization"] == "Bearer sk-alice-secret-9f3a"
    assert request.body["model"] == "alice-model"


async def test_past_the_daily_quota_the_session_plays_offline(
    alice, version, live_openai, settings
):
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    session = await live_session(alice, version)
    first = await play(session, alice, "One")
    second = await play(session, alice, "I wait")
    assert first["message"]["model"] == "test-model"
    assert second["message"]["model"] == "offline"
    assert second["message"]["content"] == "You wait. Nothing changes."
    assert len(live_openai.requests) == 1
    count = await sync_to_async(DailyActionCount.objects.get)(subject=f"user:{alice.pk}")
    assert count.count == 1
