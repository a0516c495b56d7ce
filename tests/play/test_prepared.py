"""Prepared querysets (play.prepared) give what the plain queryset gives, in one query each."""

from __future__ import annotations

import threading
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import F
from django.db.models.signals import post_save, pre_save
from django.test.utils import CaptureQueriesContext

from play.models import Message, Session
from play.prepared import Prepared, PreparedSave, PreparedUpdate
from play.sessions import with_version_hash

pytestmark = pytest.mark.django_db

LIVE = Prepared(
    lambda q: Message.objects.filter(session_id=q.session_id, compacted=False).order_by("position")
)
SINCE = Prepared(
    lambda q: (
        Message.objects.filter(session_id=q.session_id, position__gt=q.mark)
        .exclude(content="")
        .order_by("position")
        .only("position", "content")
    )
)
LOCKED = Prepared(
    lambda q: with_version_hash(Session.objects.select_for_update(of=("self",))).filter(pk=q.pk)[:1]
)
ROLES = Prepared(
    lambda q: Message.objects.filter(session_id=q.session_id).order_by("position").values("role")
)
POSITIONS = Prepared(
    lambda q: (
        Message.objects.filter(session_id=q.session_id)
        .order_by("position")
        .values_list("position", flat=True)
    )
)


@pytest.fixture
def messages(play_session: Session) -> list[Message]:
    Message.objects.filter(session=play_session).delete()
    rows = [
        Message.objects.create(
            session=play_session,
            position=i,
            role="user" if i % 2 else "assistant",
            content="" if i == 3 else f"line {i}",
            state={"values": {"gold": i}},
            compacted=i == 0,
            cost=Decimal("0.25") * i,
        )
        for i in range(6)
    ]
    return rows


def fields(message: Message) -> dict[str, Any]:
    return {f.attname: getattr(message, f.attname) for f in Message._meta.concrete_fields}


def test_models_come_back_as_the_plain_queryset_gives_them(
    play_session: Session, messages: list[Message]
) -> None:
    plain = list(
        Message.objects.filter(session_id=play_session.pk, compacted=False).order_by("position")
    )

    prepared = LIVE(session_id=play_session.pk)

    assert [fields(m) for m in prepared] == [fields(m) for m in plain]
    assert prepared[0].state == {"values": {"gold": 1}}  # the JSON read back, not its text
    assert prepared[0]._state.adding is False and prepared[0]._state.db == "default"


def test_each_call_takes_its_own_values(play_session: Session, messages: list[Message]) -> None:
    for mark in (-1, 1, 4):
        prepared = SINCE(session_id=play_session.pk, mark=mark)
        plain = SINCE.plain(session_id=play_session.pk, mark=mark)
        assert [m.position for m in prepared] == [m.position for m in plain]
    assert [m.position for m in SINCE(session_id=play_session.pk, mark=1)] == [2, 4, 5]
    assert [m.position for m in SINCE(session_id=play_session.pk, mark=4)] == [5]
    assert SINCE(session_id=str(play_session.pk), mark=5) == []  # a session id given as text
    deferred = SINCE(session_id=play_session.pk, mark=4)[0].get_deferred_fields()
    assert "state" in deferred and "content" not in deferred


def test_values_and_flat_lists(play_session: Session, messages: list[Message]) -> None:
    assert ROLES(session_id=play_session.pk)[:2] == [{"role": "assistant"}, {"role": "user"}]
    assert POSITIONS(session_id=play_session.pk) == [0, 1, 2, 3, 4, 5]


def test_a_locked_row_with_its_related_row_in_one_query(play_session: Session) -> None:
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        session = LOCKED.first(pk=play_session.pk)
        assert session is not None
        assert session.world_version.content_hash == play_session.world_version.content_hash
        assert LOCKED.first(pk="00000000-0000-0000-0000-000000000000") is None

    assert len([q for q in queries.captured_queries if q["sql"].startswith("SELECT")]) == 2


def test_an_update_counts_the_rows_it_changed(play_session: Session) -> None:
    save = PreparedUpdate(  # a JSON value and an expression, each call its own values
        lambda q: Session.objects.filter(pk=q.pk),
        lambda q: {"state": q.state, "turn_version": F("turn_version") + 1},
    )
    version = play_session.turn_version

    assert save(pk=play_session.pk, state={"values": {"x": [1, None]}}) == 1
    play_session.refresh_from_db()
    assert play_session.state == {"values": {"x": [1, None]}}
    assert save(pk=play_session.pk, state={}) == 1
    assert save(pk="00000000-0000-0000-0000-000000000000", state={}) == 0
    assert save.plain(pk=play_session.pk, state={"n": 1}) == 1  # the baseline

    play_session.refresh_from_db()
    assert (play_session.state, play_session.turn_version) == ({"n": 1}, version + 3)


def test_a_prepared_save_writes_what_save_writes(messages: list[Message]) -> None:
    saved, plain = messages[1], messages[2]
    for message in (saved, plain):
        message.content, message.status, message.cost = "done", "complete", Decimal("1.5")
        message.role = "assistant"
        message.changes = [{"variable": "gold", "before": 1, "after": 2}]
        message.state, message.choices, message.stopped = {"values": {"é": [1]}}, ["a"], True
    PreparedSave(Message)(saved)
    plain.save()
    ignore = {"id", "position", "created_at"}
    assert {
        k: v for k, v in fields(Message.objects.get(pk=saved.pk)).items() if k not in ignore
    } == {k: v for k, v in fields(Message.objects.get(pk=plain.pk)).items() if k not in ignore}


def test_a_prepared_save_of_some_fields_leaves_the_others(play_session: Session) -> None:
    before = play_session.updated_at
    play_session.state, play_session.recording = {"values": {"x": 1}}, {"r": 1}
    play_session.turn_version += 5  # not among the fields: stays as stored
    assert PreparedSave(Session, ("state", "recording", "updated_at"))(play_session) == 1
    stored = Session.objects.get(pk=play_session.pk)
    assert (stored.state, stored.recording) == ({"values": {"x": 1}}, {"r": 1})
    assert stored.turn_version == play_session.turn_version - 5
    assert stored.updated_at > before  # auto_now, as save() stamps it


def test_nothing_listens_to_the_saves_a_prepared_save_makes() -> None:
    """PreparedSave sends no signals: a receiver added for these models must move to the
    code that saves (play.replies.commit_turn), or the commit must go back to save()."""
    for model in (Message, Session):
        assert not pre_save.has_listeners(model)
        assert not post_save.has_listeners(model)


@pytest.mark.django_db(transaction=True)
def test_a_query_compiled_on_one_thread_runs_on_another(
    play_session: Session, messages: list[Message]
) -> None:
    """The play process compiles on its database thread; tests and tasks run on others."""
    fresh = Prepared(lambda q: Message.objects.filter(session_id=q.session_id).order_by("pk"))
    seen: list[int] = []

    def read() -> None:
        seen.extend(m.position for m in fresh(session_id=play_session.pk))
        connection.close()

    worker = threading.Thread(target=read)
    worker.start()
    worker.join()
    here = [m.position for m in fresh(session_id=play_session.pk)]

    assert seen == here == [0, 1, 2, 3, 4, 5]


def test_a_slot_stands_only_in_a_comparison_or_as_a_value(play_session: Session) -> None:
    fuzzy = Prepared(lambda q: Message.objects.filter(content__icontains=q.text))
    stepped = PreparedUpdate(
        lambda q: Session.objects.filter(pk=q.pk),
        lambda q: {"turn_version": F("turn_version") + q.step},
    )

    with pytest.raises(ValueError, match="comparison"):
        fuzzy(text="line")
    with pytest.raises(ValueError, match="'step'"):
        stepped(pk=play_session.pk, step=1)
