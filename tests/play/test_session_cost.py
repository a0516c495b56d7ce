"""What a story costs (issue 16 §5): each reply's usage with its cache reads, and the session's
running total in ``history.session.usage`` and ``message_done.session_usage`` (docs/PROTOCOL.md
"SessionUsage"), against the loopback model server through the real SDKs."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from play import costs, frames
from play.costs import session_usage, session_usage_or_none
from play.models import Message, Session
from play.sessions import start_session
from tests.play.conftest import Client, connect
from tests.support.model_server import ModelServer

pytestmark = pytest.mark.django_db(transaction=True)

TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
# Models the default price table knows, so every reply costs something.
PRICED = {"live_openai": "gpt-4o-mini", "live_anthropic": "claude-haiku-4-5"}


@pytest.fixture(params=list(PRICED))
def priced(request: Any, settings: Any) -> ModelServer:
    server: ModelServer = request.getfixturevalue(request.param)
    settings.FABULA_MODEL = PRICED[request.param]
    return server


async def live(user: Any, version: Any) -> tuple[Session, Client]:
    session = await sync_to_async(start_session)(user, version, mode="live", dice_seed=2)
    client, _ = await connect(session.pk, user)
    return session, client


async def turn(client: Client, text: str) -> dict[str, Any]:
    await client.send(type="send", text=text)
    return await client.settle(timeout=20)


def summed(*usages: dict[str, Any]) -> dict[str, Any]:
    totals: dict[str, Any] = {k: sum(u[k] for u in usages) for k in TOKENS}
    totals["cost"] = pytest.approx(sum(u["cost"] for u in usages), abs=1e-5)
    return totals


async def test_each_reply_carries_the_sessions_running_total(alice, version, priced):
    _, client = await live(alice, version)
    first = await turn(client, "I wait by the fire")
    second = await turn(client, "I keep waiting")
    await client.close()
    one, two = first["message"]["usage"], second["message"]["usage"]
    assert one["cost"] > 0 and two["cost"] > 0
    assert first["session_usage"] == summed(one)
    assert second["session_usage"] == summed(one, two)


async def test_cache_reads_are_counted_per_reply_and_per_session(alice, version, priced):
    _, client = await live(alice, version)
    first = await turn(client, "I wait by the fire")
    second = await turn(client, "I keep waiting")
    await client.close()
    cached = second["message"]["usage"]["cache_read_tokens"]
    assert cached > 0  # the second prompt repeats the first one's prefix
    total = second["session_usage"]["cache_read_tokens"]
    assert total == first["message"]["usage"]["cache_read_tokens"] + cached


async def test_a_reconnecting_page_gets_the_total_in_the_history(alice, version, live_openai):
    session, client = await live(alice, version)
    await turn(client, "I wait")
    done = await turn(client, "I wait more")
    await client.close()
    _, history = await connect(session.pk, alice)
    assert history["session"]["usage"] == done["session_usage"]


async def test_a_new_session_costs_nothing_yet(alice, version, live_openai):
    _, history = await connect((await live(alice, version))[0].pk, alice)
    assert history["session"]["usage"] == {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "cost": 0.0,
    }


async def test_swiping_back_counts_the_version_shown(alice, version, live_openai, settings):
    settings.FABULA_MODEL = "gpt-4o-mini"
    _, client = await live(alice, version)
    first = await turn(client, "I wait")
    reply = first["message"]
    await client.send(type="regenerate", message_id=reply["id"])
    again = await client.settle(timeout=20)
    assert again["session_usage"] == summed(again["message"]["usage"])
    await client.send(type="swipe", message_id=reply["id"], direction="left")
    swiped = await client.until("message_done")
    await client.close()
    assert swiped["message"]["active_swipe"] == 0
    assert swiped["session_usage"] == summed(reply["usage"])


async def test_the_offline_narrator_costs_nothing(alice, version):
    session = await sync_to_async(start_session)(alice, version, mode="offline")
    client, _ = await connect(session.pk, alice)
    done = await turn(client, "I wait")
    await client.close()
    assert done["session_usage"]["cost"] == 0.0
    assert done["session_usage"]["output_tokens"] == 0


# --- the sum itself --------------------------------------------------------------------------


@sync_to_async
def spent(session: Session, **usage: Any) -> None:
    position = session.messages.count()
    Message.objects.create(session=session, position=position, role="assistant", **usage)


async def test_the_total_is_the_sum_of_the_messages(alice, version):
    session = await sync_to_async(start_session)(alice, version, mode="offline")
    await spent(session, input_tokens=10, output_tokens=5, cache_read_tokens=100, cost="0.0015")
    await spent(session, input_tokens=3, cache_write_tokens=7, cost="0.000002")
    assert await sync_to_async(session_usage)(session.pk) == {
        "input_tokens": 13,
        "output_tokens": 5,
        "cache_read_tokens": 100,
        "cache_write_tokens": 7,
        "cost": pytest.approx(0.001502),
    }


def test_a_sum_that_cannot_be_read_leaves_the_frame_without_it(monkeypatch):
    def broken(session_id: Any) -> dict[str, Any]:
        raise RuntimeError("database unavailable")

    monkeypatch.setattr(costs, "session_usage", broken)
    assert session_usage_or_none("any") is None
    assert "session_usage" not in frames.message_done({"id": 1}, None)
    assert frames.message_done({"id": 1}, {"cost": 0.5})["session_usage"] == {"cost": 0.5}


def test_the_play_page_has_a_place_for_the_total(client, alice, play_session):
    client.force_login(alice)
    html = client.get(reverse("play:session", args=[play_session.pk])).content.decode()
    assert "data-session-cost" in html
    assert '"sessionCost": "Story: ${cost} \\u00b7 {cached} cached"' in html
