"""A turn sent while a background save holds the session waits for it (issue 33 §5;
play.save_wait): the player is told the story is being saved, and his action then plays; a
running turn's lock still answers "busy"."""

from __future__ import annotations

from typing import Any

import pytest

from play import save_wait, tasks
from play.locks import KEY_PREFIX, lock_backend
from play.models import Message, Session
from play.save_wait import SAVE_TAG, SAVING
from play.tasks import compact_story, compaction_due
from tests.play.conftest import connect
from tests.play.test_tasks import play_turns

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_send_during_a_background_save_waits_for_it_then_plays(alice, play_session):
    client, _ = await connect(play_session.pk, alice)
    save = await save_wait.hold_for_save(str(play_session.pk))
    assert save is not None
    await client.send(type="send", text="I look around")
    note = await client.until("notification")
    assert (note["message"], note["style"]) == (SAVING, "info")
    await save.release()  # the save wrote its few rows: the turn goes on
    done = await client.settle()
    assert done["type"] == "message_done"
    assert not [f for f in client.frames if f["type"] in ("busy", "error")]
    users = Message.objects.filter(session=play_session, role="user").values_list("content")
    assert [text async for (text,) in users] == ["I look around"]
    await client.close()


async def test_a_send_during_another_turn_is_still_busy_at_once(alice, play_session):
    client, _ = await connect(play_session.pk, alice)
    turn = await lock_backend().acquire(str(play_session.pk))  # a turn, not a save
    assert turn is not None
    await client.send(type="send", text="I look around")
    busy = await client.until("busy")
    assert busy["frame"] == {"type": "send", "text": "I look around"}
    assert not [f for f in client.frames if f["type"] == "notification"]
    await turn.release()
    await client.close()


async def test_a_save_that_outlasts_the_wait_leaves_the_send_busy(alice, play_session, monkeypatch):
    monkeypatch.setattr(save_wait, "SAVE_WAIT_SECONDS", 0.2)
    client, _ = await connect(play_session.pk, alice)
    save = await save_wait.hold_for_save(str(play_session.pk))
    assert save is not None
    await client.send(type="send", text="I look around")
    await client.until("notification")
    assert (await client.until("busy"))["frame"]["text"] == "I look around"
    await save.release()
    await client.close()


def test_the_compactions_write_holds_the_session_as_a_save(
    play_session: Session, settings, monkeypatch
):
    settings.FABULA_COMPACTION_TOKENS = 40
    play_turns(play_session, 6)
    holders: list[str] = []

    def save(session_id: str, upto: int, previous: str, summary: str) -> int:
        holders.append(lock_backend().table[KEY_PREFIX + session_id])  # type: ignore[union-attr]
        return 1

    monkeypatch.setattr(tasks, "_save", save)
    upto = compaction_due(str(play_session.pk))
    assert compact_story.delay(str(play_session.pk), upto).get()["folded"] == 1
    assert len(holders) == 1 and holders[0].startswith(SAVE_TAG)


def test_the_memory_summarys_write_holds_the_session_as_a_save(
    play_session: Session, settings, monkeypatch
) -> None:
    from play import memory

    settings.FABULA_MEMORY_MESSAGES = 6
    play_turns(play_session, 6)
    holders: list[str] = []

    def save(session_id: str, work: Any, blocks: Any) -> int:
        holders.append(lock_backend().table[KEY_PREFIX + session_id])  # type: ignore[union-attr]
        return 1

    monkeypatch.setattr(memory, "_save", save)
    memory.end_session(play_session).get()
    assert len(holders) == 1 and holders[0].startswith(SAVE_TAG)
