"""A session of 10,000 messages opens and plays (issue 14 §4): the page, the history API and the
socket's history carry one page, their query counts do not grow with the history, and a turn
plays. The 10,000 messages are one bulk insert (tests.factories.add_long_history) with small
state snapshots; tests/play/test_long_sessions.py covers large snapshots and frame sizes.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from play import frames
from play.models import Session
from play.sessions import start_session
from studio.models import WorldVersion
from tests.factories import add_long_history
from tests.play.conftest import connect

LONG = 10_000
SHORT = 100


def session_of(alice: Any, version: WorldVersion, count: int) -> Session:
    session = start_session(alice, version, mode="offline", dice_seed=7)
    add_long_history(session, count, journal="")
    return session


def queries_of(client: Any, url: str, params: dict[str, Any] | None = None) -> tuple[int, Any]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, params or {})
    assert response.status_code == 200
    return len(captured.captured_queries), response


@pytest.mark.django_db
def test_the_play_page_of_10000_messages_renders_one_page_in_as_many_queries_as_100(
    client, alice, version
):
    short, long = session_of(alice, version, SHORT), session_of(alice, version, LONG)
    assert long.messages.count() == LONG
    client.force_login(alice)
    client.get(f"/play/{short.pk}/")  # what a first request caches
    few, _ = queries_of(client, f"/play/{short.pk}/")
    many, response = queries_of(client, f"/play/{long.pk}/")
    html = response.content.decode()
    assert many <= few <= 12
    assert html.count("data-message-id=") == frames.HISTORY_PAGE
    assert f"Message {LONG - 1}:" in html
    assert f"Message {LONG - frames.HISTORY_PAGE - 1}:" not in html


@pytest.mark.django_db
def test_the_history_api_pages_a_10000_message_session_in_fixed_queries(client, alice, version):
    short, long = session_of(alice, version, SHORT), session_of(alice, version, LONG)
    client.force_login(alice)
    client.get(f"/api/play/sessions/{short.pk}/messages")  # what a first request caches
    few, _ = queries_of(client, f"/api/play/sessions/{short.pk}/messages")
    url = f"/api/play/sessions/{long.pk}/messages"
    many, newest = queries_of(client, url)
    short_middle = short.messages.get(position=SHORT // 2)
    few_older, _ = queries_of(
        client, f"/api/play/sessions/{short.pk}/messages", {"before": short_middle.pk}
    )
    middle = long.messages.get(position=LONG // 2)
    older_queries, older = queries_of(client, url, {"before": middle.pk, "limit": 20})
    assert (many, older_queries) == (few, few_older)  # as many as for 100 messages
    assert [m["position"] for m in newest.json()] == list(range(LONG - 50, LONG))
    assert [m["position"] for m in older.json()] == list(range(LONG // 2 - 20, LONG // 2))


@pytest.mark.django_db(transaction=True)
async def test_a_turn_plays_in_a_10000_message_session(alice, version):
    from asgiref.sync import sync_to_async

    session = await sync_to_async(session_of)(alice, version, LONG)
    client, history = await connect(session.pk, alice)
    assert history["type"] == "history"
    assert len(history["messages"]) == frames.HISTORY_PAGE
    assert history["has_more"] is True
    await client.send(type="send", text="I walk on")
    user = await client.until("message_done")
    assert user["message"]["content"] == "I walk on"
    done = await client.settle()
    assert done["message"]["status"] == "complete"
    assert done["message"]["content"]
    count = await sync_to_async(session.messages.count)()
    assert count == LONG + 2
    await client.close()
