"""Session and message services (play.sessions, play.messages, play.replies)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from engine.llm.base import Usage
from engine.session import SessionState
from engine.turn import TurnResult
from play import history, messages, replies, sessions
from play.errors import PlayError, SessionForbidden, SessionNotFound
from play.models import Message, Persona, Session
from play.personas import create_persona
from play.sessions import Player, start_playtest, start_session
from studio.worlds import export_world_json, update_world

pytestmark = pytest.mark.django_db


def alice_player(alice: Any) -> Player:
    return sessions.player_for(alice, None)


def add_turn(session: Session, text: str, reply: str, gold: int) -> Message:
    """A finished turn written through the same service functions a live turn uses."""
    player = Player(session.owner_id)
    plan = replies.prepare_turn(str(session.pk), player, "message", text)
    state = plan.state.clone()
    state.turn += 1
    state.values["gold"] = gold
    result = TurnResult(text=reply, raw=f"{reply} [gold: {gold}]", state=state)
    replies.commit_turn(plan, result, 12, None)
    return Message.objects.get(pk=plan.message_id)


# --- starting --------------------------------------------------------------------------------


def test_a_new_session_opens_with_every_greeting_as_a_swipe(alice, version):
    session = start_session(alice, version, mode="offline")
    [greeting] = session.messages.all()
    assert greeting.is_greeting
    assert [s["content"] for s in greeting.swipes] == [
        "Dawn over the salt, User.",
        "Dusk falls on the caravan.",
    ]
    assert greeting.raw == "Dawn over the salt, User. [gold: 5]"
    assert [s["state"]["values"]["gold"] for s in greeting.swipes] == [5, 0]
    assert session.state["values"] == {"health": 100, "gold": 5}
    assert session.state["started"] is True


def test_the_active_persona_plays_by_default_and_is_copied(alice, version):
    persona = create_persona(alice, {"name": "Mira", "backstory": "A salt trader."})
    session = start_session(alice, version, mode="offline")
    assert session.persona == persona
    assert session.persona_data["name"] == "Mira"
    assert session.messages.get().content == "Dawn over the salt, Mira."
    persona.name = "Renamed"
    persona.save()
    session.refresh_from_db()
    assert session.persona_data["name"] == "Mira"


def test_start_refuses_bad_input(alice, bob, version):
    with pytest.raises(PlayError, match=r"Unknown mode 'turbo'."):
        start_session(alice, version, mode="turbo")
    bobs = Persona.objects.create(user=bob, name="Bob's")
    with pytest.raises(PlayError, match=r"This persona is not yours."):
        start_session(alice, version, persona=bobs)
    with pytest.raises(PlayError, match=r"A guest preview needs a browser session."):
        start_session(None, version)
    assert not Session.objects.exists()


def test_a_playtest_keeps_the_draft_as_it_was_when_it_started(alice, world):
    session = start_playtest(alice, world, export_world_json(world), mode="offline")
    update_world(world, {"name": "Renamed Road"})
    session.refresh_from_db()
    assert sessions.world_of(session).name == "The Salt Road"
    assert session.is_playtest


# --- access ----------------------------------------------------------------------------------


def test_only_the_owner_or_the_guest_key_opens_a_session(alice, bob, version):
    mine = start_session(alice, version, mode="offline")
    guest = start_session(None, version, mode="offline", guest_key="k" * 32)
    assert sessions.get_session_for_player(alice_player(alice), mine.pk) == mine
    assert sessions.get_session_for_player(Player(None, "k" * 32), guest.pk) == guest
    with pytest.raises(SessionForbidden):
        sessions.get_session_for_player(sessions.player_for(bob, None), mine.pk)
    with pytest.raises(SessionForbidden):
        sessions.get_session_for_player(Player(None, "x" * 32), guest.pk)
    with pytest.raises(SessionForbidden):
        sessions.get_session_for_player(Player(None, ""), guest.pk)
    with pytest.raises(SessionNotFound):
        sessions.get_session_for_player(alice_player(alice), uuid.uuid4())
    with pytest.raises(SessionNotFound):
        sessions.get_session_for_player(alice_player(alice), "../etc")


# --- turns in the database -------------------------------------------------------------------


def test_a_committed_turn_saves_message_state_and_usage_together(alice, play_session):
    plan = replies.prepare_turn(str(play_session.pk), alice_player(alice), "message", "Hi")
    state = plan.state.clone()
    state.values["gold"] = 9
    usage = Usage(input_tokens=10, output_tokens=5, cache_read_tokens=3, cost=0.0012)
    result = TurnResult(text="Hello.", raw="Hello. [gold: 9]", state=state, usage=usage)
    replies.commit_turn(plan, result, 321, None)
    reply = Message.objects.get(pk=plan.message_id)
    play_session.refresh_from_db()
    assert (reply.content, reply.raw, reply.status) == ("Hello.", "Hello. [gold: 9]", "complete")
    assert (reply.input_tokens, reply.output_tokens, reply.cache_read_tokens) == (10, 5, 3)
    assert float(reply.cost) == pytest.approx(0.0012)
    assert reply.generation_ms == 321
    assert reply.state["values"]["gold"] == play_session.state["values"]["gold"] == 9


def test_a_commit_that_fails_leaves_neither_message_nor_state(alice, play_session, monkeypatch):
    plan = replies.prepare_turn(str(play_session.pk), alice_player(alice), "message", "Hi")
    state = plan.state.clone()
    state.values["gold"] = 99
    result = TurnResult(text="Hello.", raw="Hello.", state=state)

    def broken_save(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(replies, "_SAVE_MESSAGE", broken_save)  # the reply's write, last
    with pytest.raises(RuntimeError):
        replies.commit_turn(plan, result, 1, None)
    monkeypatch.undo()
    play_session.refresh_from_db()
    assert play_session.state["values"]["gold"] == 5
    assert Message.objects.get(pk=plan.message_id).status == "streaming"


def test_a_failed_turn_marks_the_reply_and_keeps_the_state(alice, play_session):
    before = dict(play_session.state)
    plan = replies.prepare_turn(str(play_session.pk), alice_player(alice), "message", "Hi")
    replies.fail_turn(plan, "The model is overloaded right now.")
    reply = Message.objects.get(pk=plan.message_id)
    play_session.refresh_from_db()
    assert (reply.status, reply.error) == ("failed", "The model is overloaded right now.")
    assert reply.swipes[0]["status"] == "failed"
    assert play_session.state == before


def test_regenerate_needs_a_player_message(alice, play_session):
    with pytest.raises(PlayError, match=r"The greeting cannot be regenerated"):
        replies.prepare_turn(str(play_session.pk), alice_player(alice), "regenerate")


def test_continue_needs_a_narrator_reply(alice, play_session):
    add_turn(play_session, "Hi", "Hello.", 6)
    Message.objects.create(session=play_session, position=9, role="user", content="more")
    with pytest.raises(PlayError, match=r"Only a reply of the narrator can be continued."):
        replies.prepare_turn(str(play_session.pk), alice_player(alice), "continue")


def test_a_stale_streaming_reply_is_failed_without_touching_the_state(play_session):
    stale = Message.objects.create(
        session=play_session, position=3, role="assistant", status="streaming", swipes=[{}]
    )
    [failed] = sessions.fail_stale_messages(play_session)
    stale.refresh_from_db()
    assert failed.pk == stale.pk
    assert (stale.status, stale.error) == ("failed", sessions.STALE_ERROR)
    assert stale.swipes[0]["status"] == "failed"


# --- changing messages -----------------------------------------------------------------------


def test_revert_restores_the_snapshot_of_that_message(play_session):
    first = add_turn(play_session, "One", "Reply one.", 6)
    add_turn(play_session, "Two", "Reply two.", 7)
    messages.revert_to_message(play_session, first.pk)
    play_session.refresh_from_db()
    assert play_session.messages.count() == 3
    assert play_session.state["values"]["gold"] == 6


def test_deleting_a_middle_message_keeps_the_state(play_session):
    first = add_turn(play_session, "One", "Reply one.", 6)
    add_turn(play_session, "Two", "Reply two.", 7)
    messages.delete_message(play_session, first.pk)
    play_session.refresh_from_db()
    assert play_session.state["values"]["gold"] == 7


def test_swipes_only_on_the_last_narrator_message(play_session):
    first = add_turn(play_session, "One", "Reply one.", 6)
    add_turn(play_session, "Two", "Reply two.", 7)
    with pytest.raises(PlayError, match=r"Only the last message can be swiped."):
        messages.swipe_message(play_session, first.pk, "left")
    user = play_session.messages.filter(role="user").last()
    with pytest.raises(PlayError, match=r"Only the narrator's messages have swipes."):
        messages.swipe_message(play_session, user.pk, "left")


def test_the_greeting_can_only_change_before_the_story_starts(play_session):
    add_turn(play_session, "One", "Reply one.", 6)
    with pytest.raises(PlayError, match=r"The greeting can only change before the story starts."):
        messages.switch_greeting(play_session, 1)


def test_branch_copies_messages_and_state_up_to_the_message(play_session):
    first = add_turn(play_session, "One", "Reply one.", 6)
    add_turn(play_session, "Two", "Reply two.", 7)
    branch = sessions.branch_from_message(play_session, first.pk)
    assert list(branch.messages.values_list("content", flat=True)) == [
        "Dawn over the salt, User.",
        "One",
        "Reply one.",
    ]
    assert branch.state["values"]["gold"] == 6
    assert branch.branched_from == first
    assert play_session.messages.count() == 5


def test_a_checkpoint_restores_messages_swipes_and_state_exactly(play_session):
    add_turn(play_session, "One", "Reply one.", 6)
    saved = list(play_session.messages.values("content", "raw", "swipes", "state", "position"))
    checkpoint = messages.save_checkpoint(play_session, "")
    assert checkpoint.name == "Checkpoint 1"
    add_turn(play_session, "Two", "Reply two.", 7)
    messages.restore_checkpoint(play_session, checkpoint.pk)
    play_session.refresh_from_db()
    restored = list(play_session.messages.values("content", "raw", "swipes", "state", "position"))
    assert restored == saved
    assert play_session.state["values"]["gold"] == 6


def test_history_frame_is_built_in_a_fixed_number_of_queries(
    play_session, django_assert_num_queries
):
    for i in range(5):
        add_turn(play_session, f"Say {i}", f"Reply {i}.", i)
    session = Session.objects.select_related("world_version").get(pk=play_session.pk)
    with django_assert_num_queries(4):  # the page, the greeting, checkpoints, the usage total
        frame = history.history_frame(session, None)
    assert len(frame["messages"]) == 11
    assert "raw" not in frame["messages"][1]
    assert SessionState.model_validate(session.state).values["gold"] == 4
