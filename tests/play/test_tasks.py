"""Story compaction (play.tasks), run eagerly as in the embedded mode."""

from __future__ import annotations

import pytest

from engine.turn import TurnResult
from play.models import Message
from play.replies import _history, commit_turn, prepare_turn
from play.sessions import Player
from play.tasks import KEEP_RECENT, compact_story, compaction_due, maybe_compact

pytestmark = pytest.mark.django_db(transaction=True)


def play_turns(session, count: int) -> None:
    for i in range(count):
        plan = prepare_turn(str(session.pk), Player(session.owner_id), "message", f"Step {i}")
        result = TurnResult(
            text=f"You take step {i}. Dust rises behind you.", raw="", state=plan.state
        )
        commit_turn(plan, result, 1, None)


def test_nothing_is_due_while_the_history_fits(play_session, settings):
    settings.FABULA_COMPACTION_TOKENS = 10_000
    play_turns(play_session, 5)
    assert compaction_due(str(play_session.pk)) is None


def test_old_messages_fold_into_the_summary_and_leave_the_prompt(play_session, settings):
    settings.FABULA_COMPACTION_TOKENS = 40
    play_turns(play_session, 6)
    maybe_compact(str(play_session.pk))
    play_session.refresh_from_db()
    summary = play_session.state["compaction_summary"]
    assert summary.startswith("Dawn over the salt, User.\nYou take step 0.")
    live = list(play_session.messages.filter(compacted=False))
    assert len(live) == KEEP_RECENT
    history = _history(list(play_session.messages.all()))
    assert [m.content for m in history] == [m.content for m in live]


def test_compacting_a_range_twice_changes_nothing(play_session, settings):
    settings.FABULA_COMPACTION_TOKENS = 40
    play_turns(play_session, 6)
    upto = compaction_due(str(play_session.pk))
    assert upto is not None
    first = compact_story.delay(str(play_session.pk), upto).get()
    again = compact_story.delay(str(play_session.pk), upto).get()
    assert first["folded"] > 0
    assert again == {"session": str(play_session.pk), "folded": 0}
    assert Message.objects.filter(compacted=True).count() == first["folded"]


def test_a_compaction_does_not_hold_the_session_while_it_summarises(
    play_session, settings, monkeypatch
):
    """A player's send is never "busy" because a summary is being written."""
    from play import tasks
    from play.locks import lock_backend

    settings.FABULA_COMPACTION_TOKENS = 40
    play_turns(play_session, 6)
    held: list[bool] = []

    async def summarise(session, previous, messages):
        held.append(await lock_backend().is_held(str(session.pk)))
        return "The story so far."

    monkeypatch.setattr(tasks, "_summarise", summarise)
    upto = compaction_due(str(play_session.pk))
    assert compact_story.delay(str(play_session.pk), upto).get()["folded"] > 0
    assert held == [False]
    play_session.refresh_from_db()
    assert play_session.state["compaction_summary"] == "The story so far."


def test_a_summary_is_not_written_while_a_turn_claims_the_session(play_session, settings):
    from play.tasks import _save

    settings.FABULA_COMPACTION_TOKENS = 40
    play_turns(play_session, 6)
    upto = compaction_due(str(play_session.pk))
    prepare_turn(str(play_session.pk), Player(play_session.owner_id), "message", "Go on")
    assert _save(str(play_session.pk), upto, "", "A summary.") is None
    play_session.refresh_from_db()
    assert play_session.state.get("compaction_summary", "") == ""


def test_an_eager_summary_never_waits_on_the_database_thread_the_next_turn_needs():
    from celery import current_app

    from play.tasks import SAVE_WAIT_SECONDS, save_wait_seconds

    assert current_app.conf.task_always_eager  # the embedded mode of these tests
    assert save_wait_seconds() == 0.0
    current_app.conf.task_always_eager = False
    try:
        assert save_wait_seconds() == SAVE_WAIT_SECONDS  # a worker waits for the turn to end
    finally:
        current_app.conf.task_always_eager = True
