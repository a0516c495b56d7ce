"""What a turn costs the database: a fixed number of queries per trip, whatever the history.

A turn makes three trips to the database thread (play.turns): prepare, commit with the running
total, and the check for background work. Under load they queue behind other sessions' trips, so
each must stay small and must not grow with the session's length nor re-read the world's
definition (megabytes for a large world) once this process has compiled it.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from engine.turn import TurnResult
from play.models import Message, Session
from play.replies import prepare_turn
from play.sessions import Player, world_of
from play.turns import _commit, _queue_background_work

pytestmark = pytest.mark.django_db(transaction=True)

PREPARE_QUERIES = 8  # begin, session row, seat check, claim, messages, 2 inserts, commit
COMMIT_QUERIES = 8  # begin, session row, state + claim, seats, reply, its save, commit, total
BACKGROUND_QUERIES = 2  # live messages, new messages (the session row: the commit's)


@pytest.fixture(autouse=True)
def no_background_work_due(settings: Any) -> None:
    settings.FABULA_MEMORY_MESSAGES = 10_000  # no summary falls due and runs eagerly mid-count


def trips(session: Session, text: str) -> list[list[dict[str, Any]]]:
    """The queries of each of a turn's trips, as play.turns makes them."""
    counted = []
    with CaptureQueriesContext(connection) as prepared:
        plan = prepare_turn(str(session.pk), Player(session.owner_id), "message", text)
    counted.append(prepared.captured_queries)
    result = TurnResult(text=f"You answer {text}.", raw="", state=plan.state)
    with CaptureQueriesContext(connection) as committed:
        _commit(plan, result, 1, None)
    counted.append(committed.captured_queries)
    with CaptureQueriesContext(connection) as background:
        _queue_background_work(str(session.pk), plan.saved_session)
    counted.append(background.captured_queries)
    return counted


def test_each_trip_of_a_turn_makes_a_fixed_number_of_queries(play_session: Session) -> None:
    prepared, committed, background = trips(play_session, "Go")

    assert len(prepared) == PREPARE_QUERIES, [q["sql"][:80] for q in prepared]
    assert len(committed) == COMMIT_QUERIES, [q["sql"][:80] for q in committed]
    assert len(background) == BACKGROUND_QUERIES, [q["sql"][:80] for q in background]


def test_a_long_history_costs_no_more_queries_than_a_short_one(play_session: Session) -> None:
    for i in range(10):  # past the few recent messages that never need a compaction check
        trips(play_session, f"Step {i}")
    early = [len(t) for t in trips(play_session, "Step 10")]
    for i in range(11, 40):
        trips(play_session, f"Step {i}")
    late = [len(t) for t in trips(play_session, "Step 40")]

    assert Message.objects.filter(session=play_session).count() > 80
    assert late == early


def test_a_turn_does_not_read_the_worlds_definition_once_it_is_compiled(
    play_session: Session,
) -> None:
    world_of(play_session)  # compiled once in this process, as the first turn would

    queries = [q["sql"] for trip in trips(play_session, "Go") for q in trip]

    assert not [sql for sql in queries if '"studio_worldversion"."definition"' in sql]


def test_a_new_process_reads_the_definition_once_then_by_its_hash(
    play_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    from play import sessions

    monkeypatch.setattr(sessions, "_worlds", type(sessions._worlds)())
    first = [q["sql"] for trip in trips(play_session, "Go") for q in trip]
    second = [q["sql"] for trip in trips(play_session, "Go on") for q in trip]

    assert len([sql for sql in first if '"studio_worldversion"."definition"' in sql]) == 1
    assert not [sql for sql in second if '"studio_worldversion"."definition"' in sql]


def test_a_long_compacted_session_reads_only_the_messages_the_prompt_can_see(
    play_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    Message.objects.filter(session=play_session).update(position=3_000)  # the greeting, last
    Message.objects.bulk_create(
        Message(session=play_session, position=i, role="user", content=f"Old {i}", compacted=True)
        for i in range(3_000)
    )
    loaded: list[int] = []
    from_db = Message.from_db.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Message], *args: Any) -> Message:
        loaded.append(1)
        return from_db(cls, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(Message, "from_db", classmethod(counting))
    plan = prepare_turn(str(play_session.pk), Player(play_session.owner_id), "message", "Go")

    assert len(loaded) < 10
    assert plan.position == 3_002  # after the greeting and the player's new message
    assert [m.content for m in plan.history] == ["Dawn over the salt, User."]


async def test_turns_over_the_socket_queue_the_summary_once_it_falls_due(
    play_session: Session, settings: Any
) -> None:
    """The after-turn check reads the session row the commit left (no read of its own) and
    still sees each turn's new messages: with a block due every four, two turns write one."""
    from asgiref.sync import sync_to_async

    from tests.play.conftest import connect

    settings.FABULA_MEMORY_MESSAGES = 4
    owner = await sync_to_async(lambda: play_session.owner)()
    client, _ = await connect(play_session.pk, owner)
    for text in ("Go north", "Go east"):
        await client.send(type="send", text=text)
        await client.settle()
    await client.close()

    session = await Session.objects.aget(pk=play_session.pk)
    state = session.state or {}
    assert state.get("session_memory")  # a block was written
    assert state.get("memory_mark", -1) >= 0
