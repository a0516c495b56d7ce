"""Long sessions stay playable (issue 9 §7): history in pages, state once, no frame over 256 KiB.

A session of 2,000 messages, each holding a 5 KB state snapshot, is built with one bulk insert
(tests.factories.add_long_history) and opened through the consumer, like a browser would.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from play import frames, relay
from play.models import Session
from play.sessions import start_session
from studio.models import WorldVersion
from studio.publishing import publish_world
from tests.factories import add_long_history, journal_text, make_world
from tests.play.conftest import (
    PLAY_WORLD_ENTRIES,
    PLAY_WORLD_RULES,
    PLAY_WORLD_VARIABLES,
    Client,
)

LIMIT = 256 * 1024
LONG = 2000
MARK = "JOURNAL-MARK"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def journal_version(alice: Any) -> WorldVersion:
    journal = {"id": "journal", "name": "Journal", "type": "string", "defaultValue": ""}
    world = make_world(
        alice,
        entries=PLAY_WORLD_ENTRIES,
        variables=[*PLAY_WORLD_VARIABLES, journal],
        rules=PLAY_WORLD_RULES,
    )
    return publish_world(world)


@pytest.fixture
def long_session(alice: Any, journal_version: WorldVersion) -> Session:
    session = start_session(alice, journal_version, mode="offline", dice_seed=7)
    add_long_history(session, LONG)
    return session


class SizedClient(Client):
    """The play socket, keeping the encoded size of every frame it receives."""

    def __init__(self, communicator: Any) -> None:
        super().__init__(communicator)
        self.texts: list[str] = []

    async def receive(self, timeout: float = 10) -> dict[str, Any]:
        text = await self.ws.receive_from(timeout)
        self.texts.append(text)
        frame: dict[str, Any] = json.loads(text)
        self.frames.append(frame)
        return frame

    @property
    def largest(self) -> int:
        return max(len(t.encode()) for t in self.texts)


async def open_socket(session_id: Any, user: Any) -> tuple[SizedClient, dict[str, Any]]:
    from channels.testing import WebsocketCommunicator

    from tests.play.conftest import consumer_app

    communicator = WebsocketCommunicator(consumer_app(), f"/ws/play/{session_id}/")
    communicator.scope["user"] = user
    communicator.scope["session"] = None
    connected, _ = await communicator.connect()
    assert connected
    client = SizedClient(communicator)
    return client, await client.receive()


@sync_to_async
def ids_by_position(session: Session) -> list[int]:
    return list(session.messages.order_by("position").values_list("pk", flat=True))


def state_free(message: dict[str, Any]) -> bool:
    return "state" not in message and all("state" not in s for s in message["swipes"])


# --- opening ---------------------------------------------------------------------------------


async def test_a_long_session_opens_with_the_newest_page_and_the_state_once(alice, long_session):
    client, history = await open_socket(long_session.pk, alice)
    assert history["type"] == "history"
    assert len(client.texts[0].encode()) <= LIMIT
    ids = await ids_by_position(long_session)
    page = [m["id"] for m in history["messages"]]
    assert page == ids[-len(page) :]
    assert len(page) >= 20
    assert history["has_more"] is True
    assert client.texts[0].count(MARK) == 1
    assert history["state"]["values"]["journal"] == journal_text()
    assert all(state_free(m) for m in history["messages"])
    await client.close()


async def test_paging_back_returns_every_older_message_until_the_start(alice, long_session):
    client, history = await open_socket(long_session.pk, alice)
    seen = [m["id"] for m in history["messages"]]
    more = history["has_more"]
    while more:
        await client.send(type="history", before=seen[0], limit=50)
        page = await client.until("history_page")
        assert page["before"] == seen[0]
        assert 0 < len(page["messages"]) <= 50
        assert all(state_free(m) for m in page["messages"])
        seen = [m["id"] for m in page["messages"]] + seen
        more = page["has_more"]
    assert seen == await ids_by_position(long_session)
    assert client.largest <= LIMIT
    assert MARK not in "".join(client.texts[1:])
    await client.close()


async def test_a_page_before_an_unknown_message_is_an_error_naming_before(alice, long_session):
    client, _ = await open_socket(long_session.pk, alice)
    await client.send(type="history", before=999_999)
    error = await client.until("error")
    assert error["field"] == "before"
    assert error["error"] == "This message does not exist in the session."
    await client.close()


# --- playing ---------------------------------------------------------------------------------


async def test_a_message_plays_in_a_long_session_and_no_frame_carries_a_snapshot(
    alice, long_session
):
    client, _ = await open_socket(long_session.pk, alice)
    await client.send(type="send", text="I read the journal")
    user = await client.until("message_done")
    assert user["message"]["content"] == "I read the journal"
    done = await client.settle()
    assert done["message"]["status"] == "complete"
    state = await client.until("state")
    assert state["values"]["journal"] == journal_text()
    assert state["values"]["gold"] == LONG - 1
    for frame in client.frames:
        if "message" in frame:
            assert state_free(frame["message"])
    assert "".join(client.texts).count(MARK) == 2  # the history's state and the turn's
    assert client.largest <= LIMIT
    await client.close()


async def test_sync_after_reconnect_sends_only_what_is_new(alice, long_session):
    client, history = await open_socket(long_session.pk, alice)
    last = history["messages"][-1]["id"]
    await client.close()
    await sync_to_async(add_long_history)(long_session, LONG + 3)
    client, history = await open_socket(long_session.pk, alice)
    await client.send(type="sync", last_message_id=last)
    synced = await client.until("history")
    assert synced["since"] == last
    assert [m["position"] for m in synced["messages"]] == [LONG, LONG + 1, LONG + 2]
    assert client.largest <= LIMIT
    await client.close()


async def test_sync_from_far_back_starts_again_from_the_newest_page(alice, long_session):
    client, _ = await open_socket(long_session.pk, alice)
    ids = await ids_by_position(long_session)
    await client.send(type="sync", last_message_id=ids[10])
    synced = await client.until("history")
    assert synced["since"] is None
    assert synced["has_more"] is True
    assert synced["messages"][-1]["id"] == ids[-1]
    assert client.largest <= LIMIT
    await client.close()


async def test_a_revert_in_a_long_session_sends_everyone_a_page(alice, long_session):
    client, _ = await open_socket(long_session.pk, alice)
    ids = await ids_by_position(long_session)
    await client.send(type="revert", message_id=ids[1500])
    reverted = await client.until("history")
    assert reverted["messages"][-1]["id"] == ids[1500]
    assert reverted["has_more"] is True
    assert client.largest <= LIMIT
    await client.close()


# --- what does not fit -----------------------------------------------------------------------


@sync_to_async
def make_huge(session: Session, position: int, content: str) -> int:
    message = session.messages.get(position=position)
    message.content = content
    message.swipes = [{"content": content, "status": "complete"}] * 3
    message.save()
    return int(message.pk)


async def test_a_huge_message_arrives_truncated_and_flagged(alice, long_session):
    huge = "A very long reply. " * 40_000  # 760 KB
    huge_id = await make_huge(long_session, LONG - 1, huge)
    client, history = await open_socket(long_session.pk, alice)
    assert len(client.texts[0].encode()) <= LIMIT
    last = history["messages"][-1]
    assert last["id"] == huge_id
    assert last["truncated"] is True
    assert huge.startswith(last["content"])
    assert 0 < len(last["content"]) < len(huge)
    assert len(last["swipes"]) == 3
    await client.close()


@sync_to_async
def set_state(session: Session, values: dict[str, Any]) -> None:
    session.state = {**session.state, "values": values}
    session.save(update_fields=["state"])


async def test_a_state_over_the_limit_comes_as_partial_state_frames(alice, long_session):
    values = {f"lore{i}": f"lore {i} " + "x" * 100_000 for i in range(5)}
    values["giant"] = "g" * 400_000
    values["gold"] = 3
    await set_state(long_session, values)
    client, history = await open_socket(long_session.pk, alice)
    assert history["state"] is None
    merged: dict[str, Any] = {}
    omitted: list[str] = []
    while set(merged) | set(omitted) != set(values):
        state = await client.until("state")
        assert state["partial"] is True
        merged.update(state["values"])
        omitted += state.get("omitted", [])
    assert omitted == ["giant"]
    assert merged == {k: v for k, v in values.items() if k != "giant"}
    assert client.largest <= LIMIT
    await client.close()


def test_a_backlog_of_deltas_is_merged_into_frames_under_the_limit():
    chunk = "word " * 2_000  # 10 KB a delta
    deltas = [frames.delta(7, chunk, seq) for seq in range(1, 101)]
    merged = relay.coalesce_deltas(deltas)
    assert len(merged) > 1
    assert "".join(d["text"] for d in merged) == chunk * 100
    assert max(len(frames.encode(d).encode()) for d in merged) <= LIMIT
    assert [d["first_seq"] for d in merged[1:]] == [d["seq"] + 1 for d in merged[:-1]]


# --- HTTP ------------------------------------------------------------------------------------


def test_a_truncated_message_is_served_whole_over_http_to_its_player_only(
    client, alice, bob, long_session
):
    message = long_session.messages.get(position=LONG - 1)
    message.content = "A very long reply. " * 40_000
    message.save()
    url = f"/play/{long_session.pk}/messages/{message.pk}/"
    client.force_login(alice)
    response = client.get(url)
    assert response.status_code == 200
    body = response.json()
    assert body["content"] == message.content
    assert "truncated" not in body
    assert "state" not in body
    assert client.get(f"/play/{long_session.pk}/messages/999999/").status_code == 404
    client.force_login(bob)
    assert client.get(url).status_code == 404


def test_the_play_page_renders_only_the_newest_page(
    client, alice, long_session, django_assert_max_num_queries
):
    client.force_login(alice)
    with django_assert_max_num_queries(12):
        response = client.get(f"/play/{long_session.pk}/")
    html = response.content.decode()
    assert html.count("data-message-id=") == 50
    assert f"Message {LONG - 1}:" in html
    assert f"Message {LONG - 51}:" not in html
    assert len(response.content) < LIMIT


def test_the_playtest_panel_renders_only_the_newest_page(client, alice, journal_version):
    from play.playtests import reset_playtest

    world = journal_version.world
    session = reset_playtest(alice, world, mode="offline")
    add_long_history(session, LONG)
    client.force_login(alice)
    html = client.get(f"/play/playtest/{world.pk}/").content.decode()
    assert html.count("data-message-id=") == 50
    assert f"Message {LONG - 1}:" in html


def test_the_messages_api_pages_backwards(client, alice, long_session):
    client.force_login(alice)
    url = f"/api/play/sessions/{long_session.pk}/messages"
    newest = client.get(url).json()
    assert [m["position"] for m in newest] == list(range(LONG - 50, LONG))
    older = client.get(url, {"before": newest[0]["id"], "limit": 10}).json()
    assert [m["position"] for m in older] == list(range(LONG - 60, LONG - 50))
    assert all("state" not in m for m in older)
    assert client.get(url, {"limit": 1000}).status_code == 422
