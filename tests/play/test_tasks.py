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
