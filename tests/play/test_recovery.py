"""Claims, fencing and taking over orphaned turns (play.recovery), in the embedded mode."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError
from django.utils import timezone

from engine.turn import TurnResult
from play import recovery, replies, turns
from play.errors import SessionBusy
from play.models import Message, Session
from play.recovery import TurnFenced, owner_alive, owner_of, take_over
from play.sessions import STALE_ERROR, Player
from tests.play.conftest import connect
from tests.support.model_server import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def dead_owner() -> str:
    """The claim of a process of this machine that has exited."""
    child = subprocess.Popen(["true"])
    child.wait()
    return f"{recovery._machine()}|{child.pid}|1|deadbeef"


def prepare(session: Session, text: str = "Hit me", owner: str = "") -> replies.TurnPlan:
    return replies.prepare_turn(
        str(session.pk), Player(session.owner_id), "message", text, owner=owner
    )


def hit(plan: replies.TurnPlan, damage: int) -> TurnResult:
    state = plan.state.clone()
    state.values["health"] = int(state.values["health"]) - damage
    return TurnResult(text=f"Ouch, {damage}.", raw="", state=state)


# --- owners ----------------------------------------------------------------------------------


def test_this_process_is_alive_and_an_exited_one_is_not():
    assert owner_alive(owner_of("abc")) is True
    assert owner_alive(dead_owner()) is False


def test_a_process_of_another_machine_cannot_be_judged_here():
    assert owner_alive("elsewhere/pid:[1]|123|456|abc") is None


# --- claims and fences -----------------------------------------------------------------------


def test_a_second_turn_is_busy_while_the_first_claims_the_session(play_session):
    prepare(play_session, owner=owner_of("first"))
    with pytest.raises(SessionBusy):
        prepare(play_session, owner=owner_of("second"))


def test_a_turn_taken_over_cannot_commit_over_the_state(play_session):
    plan = prepare(play_session, owner=dead_owner())
    taken = take_over(str(play_session.pk))
    assert taken is not None
    assert [m["id"] for m in taken.failed] == [plan.message_id]
    with pytest.raises(TurnFenced):
        replies.commit_turn(plan, hit(plan, 5), 1, None)
    play_session.refresh_from_db()
    assert play_session.state["values"]["health"] == 100
    reply = Message.objects.get(pk=plan.message_id)
    assert (reply.status, reply.error) == ("failed", STALE_ERROR)


def test_turns_one_after_the_other_each_apply_their_change(play_session):
    for _ in range(2):
        plan = prepare(play_session, owner=owner_of("t"))
        replies.commit_turn(plan, hit(plan, 5), 1, None)
    play_session.refresh_from_db()
    assert play_session.state["values"]["health"] == 90
    assert (play_session.turn_owner, play_session.turn_version) == ("", 2)


def test_a_live_turn_with_a_fresh_heartbeat_is_not_taken_over(play_session):
    prepare(play_session, owner=owner_of("live"))
    assert take_over(str(play_session.pk)) is None
    assert recovery.turn_status(str(play_session.pk)) == "live"


def test_a_turn_whose_heartbeat_is_stale_is_taken_over(play_session, settings):
    settings.FABULA_TURN_STALE_SECONDS = 5
    plan = prepare(play_session, owner="elsewhere/pid:[1]|123|456|abc")
    assert recovery.turn_status(str(play_session.pk)) == "live"
    Session.objects.filter(pk=play_session.pk).update(
        turn_heartbeat=timezone.now() - timedelta(seconds=30)
    )
    assert recovery.turn_status(str(play_session.pk)) == "orphaned"
    assert take_over(str(play_session.pk)) is not None
    assert Message.objects.get(pk=plan.message_id).status == "failed"


# --- over the socket -------------------------------------------------------------------------


async def test_joining_fails_the_reply_of_a_dead_process_at_once_and_a_send_goes_through(
    alice, play_session
):
    plan = await sync_to_async(prepare)(play_session, owner=dead_owner())
    client, history = await connect(play_session.pk, alice)
    failed = next(m for m in history["messages"] if m["id"] == plan.message_id)
    assert (failed["status"], failed["error"]) == ("failed", STALE_ERROR)
    pushed = await client.until("message_failed")
    assert pushed["message_id"] == plan.message_id
    await client.send(type="send", text="Again")
    assert (await client.settle())["type"] == "message_done"
    await client.close()


async def test_a_send_while_a_dead_process_still_holds_the_lock_is_not_busy(alice, play_session):
    from play.locks import KEY_PREFIX, lock_backend

    client, _ = await connect(play_session.pk, alice)
    plan = await sync_to_async(prepare)(play_session, owner=dead_owner())
    lock_backend().table[KEY_PREFIX + str(play_session.pk)] = "deadbeef"  # type: ignore[union-attr]
    await client.send(type="send", text="Go")
    failed = await client.until("message_failed")
    assert failed["message_id"] == plan.message_id
    done = await client.settle()
    assert (done["type"], done["message"]["role"]) == ("message_done", "assistant")
    await client.close()


async def test_a_quick_change_is_busy_while_a_turn_claims_the_session_without_a_lock(
    alice, play_session
):
    """After a Redis restart only the claim in the database says a turn runs."""
    client, history = await connect(play_session.pk, alice)
    greeting = history["messages"][0]["id"]
    await sync_to_async(prepare)(play_session, owner="elsewhere/pid:[1]|1|1|abc")
    await client.send(type="edit", message_id=greeting, content="Changed")
    busy = await client.until("busy")
    assert busy["frame"]["type"] == "edit"
    await client.close()


async def test_the_supervisor_fails_a_watched_turn_when_its_heartbeat_stops(
    alice, play_session, settings
):
    settings.FABULA_TURN_HEARTBEAT_SECONDS = 0.2
    settings.FABULA_TURN_STALE_SECONDS = 1
    plan = await sync_to_async(prepare)(play_session, owner="elsewhere/pid:[1]|1|1|abc")
    client, history = await connect(play_session.pk, alice)
    assert history["messages"][-1]["status"] == "streaming"
    failed = await client.until("message_failed", timeout=10)
    assert (failed["message_id"], failed["error"]) == (plan.message_id, STALE_ERROR)
    await client.close()


async def test_every_socket_gets_an_end_frame_when_the_database_fails_at_commit(
    alice, play_session, live_openai, monkeypatch, settings
):
    """The commit and the first tries to mark the failure fail; the socket hears at once."""
    live_openai.script([Reply(text="You are hit. [health: -5]")])
    await sync_to_async(Session.objects.filter(pk=play_session.pk).update)(mode="live")
    outage = {"left": 3}
    real_fail = replies.fail_turn

    def broken_commit(*args: Any) -> Any:
        raise OperationalError("the database is down")

    def flaky_fail(plan: Any, error: str) -> Any:
        if outage["left"] > 0:
            outage["left"] -= 1
            raise OperationalError("the database is down")
        return real_fail(plan, error)

    monkeypatch.setattr(turns, "commit_turn", broken_commit)
    monkeypatch.setattr(turns, "fail_turn", flaky_fail)
    monkeypatch.setattr(turns, "_settle_delay", lambda delay: 0.05)
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="I charge")
    start = await client.until("message_start")
    ended = await client.settle()
    assert ended["type"] == "message_failed"
    assert ended["error"] == turns.SAVE_ERROR
    assert ended["message"]["status"] == "failed"
    settled = await client.until("message_failed", timeout=10)  # written once it answered
    assert settled["message_id"] == start["message"]["id"]
    reply = await sync_to_async(Message.objects.get)(pk=start["message"]["id"])
    assert (reply.status, reply.error) == ("failed", turns.SAVE_ERROR)
    session = await sync_to_async(Session.objects.get)(pk=play_session.pk)
    assert session.state["values"]["health"] == 100
    assert session.turn_owner == ""
    await client.close()
