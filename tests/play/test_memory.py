"""The session memory on the play side (play.memory, play.views.memory), Celery eager."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from engine.memory import SUMMARY_PROMPT
from engine.turn import TurnResult
from play.memory import (
    BUSY_EDIT,
    MemoryBusy,
    _save,
    end_session,
    maybe_summarise,
    memory_due,
    save_memory,
    summarise_memory,
)
from play.models import Session
from play.replies import commit_turn, prepare_turn
from play.sessions import Player, start_session
from play.turns import _make_turn
from studio.models import WorldVersion
from tests.play.test_gm_play import gm_data, publish_gm
from tests.studio.view_helpers import hx, is_partial
from tests.support.model_server import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def play_turns(session: Session, count: int, start: int = 0) -> None:
    """``count`` turns with a canned reply each, committed as play.turns commits them."""
    for i in range(start, start + count):
        plan = prepare_turn(str(session.pk), Player(session.owner_id), "message", f"Step {i}")
        result = TurnResult(
            text=f"You take step {i}. Dust rises behind you.", raw="", state=plan.state
        )
        commit_turn(plan, result, 1, None)


def memory_of(session: Session) -> str:
    session.refresh_from_db()
    return str(session.state.get("session_memory", ""))


@pytest.fixture
def every_six(settings: Any) -> None:
    settings.FABULA_MEMORY_MESSAGES = 6


# --- when a block is due, and what it holds ------------------------------------------------


def test_no_block_is_due_before_the_setting_count(play_session: Session, every_six: None) -> None:
    play_turns(play_session, 2)  # the greeting and four messages

    assert memory_due(str(play_session.pk)) is None


def test_a_block_sums_up_the_messages_once_the_count_is_reached(
    play_session: Session, every_six: None
) -> None:
    play_turns(play_session, 3)  # the greeting and six messages

    maybe_summarise(str(play_session.pk))

    assert memory_of(play_session) == (
        "Dawn over the salt, User.\nYou take step 0.\nYou take step 1.\nYou take step 2."
    )
    assert play_session.state["memory_mark"] == 6  # the last message it covers


def test_the_memory_stays_byte_identical_until_the_next_block(
    play_session: Session, every_six: None
) -> None:
    play_turns(play_session, 3)
    maybe_summarise(str(play_session.pk))
    first = memory_of(play_session)

    for i in range(3, 5):  # four more messages: fewer than six since the block
        play_turns(play_session, 1, start=i)
        maybe_summarise(str(play_session.pk))
        assert memory_of(play_session) == first

    play_turns(play_session, 1, start=5)
    maybe_summarise(str(play_session.pk))
    assert (
        memory_of(play_session)
        == first + "\n\nYou take step 3.\nYou take step 4.\nYou take step 5."
    )


def test_a_later_block_goes_after_the_players_edit(play_session: Session, every_six: None) -> None:
    play_turns(play_session, 3)
    maybe_summarise(str(play_session.pk))
    save_memory(play_session, "Kai owes the ferryman a silver coin.")

    play_turns(play_session, 3, start=3)
    maybe_summarise(str(play_session.pk))

    assert memory_of(play_session) == (
        "Kai owes the ferryman a silver coin.\n\n"
        "You take step 3.\nYou take step 4.\nYou take step 5."
    )


def test_a_task_delivered_twice_writes_its_block_once(
    play_session: Session, every_six: None
) -> None:
    play_turns(play_session, 3)

    first = summarise_memory.delay(str(play_session.pk)).get()
    again = summarise_memory.delay(str(play_session.pk)).get()

    assert first == {"session": str(play_session.pk), "blocks": 1, "reason": "messages"}
    assert again == {"session": str(play_session.pk), "blocks": 0}
    assert memory_of(play_session).count("You take step 0.") == 1


def test_ending_the_session_summarises_what_is_left(play_session: Session) -> None:
    play_turns(play_session, 1)
    assert memory_due(str(play_session.pk)) is None  # far from forty messages

    end_session(play_session)

    assert memory_of(play_session) == "Dawn over the salt, User.\nYou take step 0."
    end_session(play_session)
    assert memory_of(play_session) == "Dawn over the salt, User.\nYou take step 0."


def test_a_block_is_not_written_while_a_turn_claims_the_session(
    play_session: Session, every_six: None
) -> None:
    play_turns(play_session, 3)
    work = memory_due(str(play_session.pk))
    assert work is not None
    prepare_turn(str(play_session.pk), Player(play_session.owner_id), "message", "Go on")

    assert _save(str(play_session.pk), work, []) is None
    assert memory_of(play_session) == ""


def test_a_live_session_summarises_with_its_model(
    alice: Any, version: WorldVersion, live_openai: Any, every_six: None
) -> None:
    session = start_session(alice, version, mode="live", dice_seed=7)
    play_turns(session, 3)
    live_openai.script([Reply(text="Kai walked three steps across the salt. [gold: 99]")])

    maybe_summarise(str(session.pk))

    assert memory_of(session) == "Kai walked three steps across the salt."
    request = live_openai.requests[-1].body
    assert request["messages"][0] == {"role": "system", "content": SUMMARY_PROMPT}
    assert "user: Step 2" in request["messages"][1]["content"]


def test_a_summary_falls_back_to_the_extractive_one_when_the_model_fails(
    alice: Any, version: WorldVersion, live_openai: Any, every_six: None
) -> None:
    from tests.support.model_server import Fault

    session = start_session(alice, version, mode="live", dice_seed=7)
    play_turns(session, 3)
    live_openai.script([Fault("401")])

    maybe_summarise(str(session.pk))

    assert memory_of(session).startswith("Dawn over the salt, User.\nYou take step 0.")


# --- the player's edit -----------------------------------------------------------------------


def test_an_edit_is_refused_while_a_turn_claims_the_session(play_session: Session) -> None:
    prepare_turn(str(play_session.pk), Player(play_session.owner_id), "message", "Go on")

    with pytest.raises(MemoryBusy) as raised:
        save_memory(play_session, "Notes.")

    assert raised.value.message == BUSY_EDIT
    assert memory_of(play_session) == ""


def test_regenerating_the_last_reply_keeps_the_edit(play_session: Session) -> None:
    play_turns(play_session, 1)
    save_memory(play_session, "Kai fears deep water.")

    plan = prepare_turn(str(play_session.pk), Player(play_session.owner_id), "regenerate")

    assert plan.state.session_memory == "Kai fears deep water."


# --- game-master worlds ----------------------------------------------------------------------


def gm_turn(session: Session, text: str) -> None:
    plan = prepare_turn(str(session.pk), Player(session.owner_id), "message", text)
    result = asyncio.run(_make_turn(plan).run())
    commit_turn(plan, result, 1, None)


def test_a_scene_end_becomes_npc_memories_and_a_recap(alice: Any) -> None:
    session = start_session(alice, publish_gm(alice, gm_data()), mode="offline", dice_seed=7)
    gm_turn(session, "look around")  # Ren at the Wayfarer's Rest, with Hilda
    assert memory_due(str(session.pk)) is None  # the scene goes on

    gm_turn(session, "go south")
    maybe_summarise(str(session.pk))

    session.refresh_from_db()
    assert session.state["session_memory"] == (
        "The Wayfarer's Rest · morning, day 1\n"
        "Ren Ashby looks at The Wayfarer's Rest.\n"
        "Ren Ashby goes south to Market Square."
    )
    memories = session.state["gm"]["memories"]
    assert {m["about"] for m in memories["hilda"]} == {"ren"}
    assert memories["hilda"][-1]["text"].startswith("The Wayfarer's Rest · ")
    assert "greta" not in memories  # she is in the square: she saw nothing of that scene
    assert session.state["memory_event"] > 0


# --- the views -------------------------------------------------------------------------------


def memory_url(session: Session, end: bool = False) -> str:
    return reverse("play:memory_end" if end else "play:memory", args=[session.pk])


def test_the_play_page_shows_the_memory_panel(
    client: Client, alice: Any, play_session: Session
) -> None:
    save_memory(play_session, "Kai owes the ferryman.")
    client.force_login(alice)

    html = client.get(reverse("play:session", args=[play_session.pk])).content.decode()

    assert f'id="memory-{play_session.pk}"' in html
    assert "Kai owes the ferryman." in html


def test_the_panel_answers_htmx_with_its_body_only(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)

    response = client.get(memory_url(play_session) + "?edit=1", **hx())

    assert response.status_code == 200
    assert is_partial(response)
    assert b'name="memory"' in response.content


def test_saving_the_memory_by_htmx_shows_it(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)

    response = client.post(memory_url(play_session), {"memory": "Line one\r\nLine two"}, **hx())

    assert response.status_code == 200
    assert b"Line one<br>Line two" in response.content
    assert memory_of(play_session) == "Line one\nLine two"


def test_a_plain_post_saves_and_goes_back_to_the_story(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)

    response = client.post(memory_url(play_session), {"memory": "Notes."})

    assert response.status_code == 302
    assert response["Location"] == reverse("play:session", args=[play_session.pk])
    assert memory_of(play_session) == "Notes."


def test_a_plain_get_is_a_page_of_its_own(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)

    response = client.get(memory_url(play_session))

    assert response.status_code == 200
    assert b"<html" in response.content


def test_an_edit_during_a_turn_reshows_the_form_with_the_error(
    client: Client, alice: Any, play_session: Session
) -> None:
    prepare_turn(str(play_session.pk), Player(play_session.owner_id), "message", "Go on")
    client.force_login(alice)

    response = client.post(memory_url(play_session), {"memory": "Kept in the box."}, **hx())

    assert response.status_code == 409
    html = response.content.decode()
    assert BUSY_EDIT in html and "Kept in the box." in html


def test_ending_the_session_from_the_panel(
    client: Client, alice: Any, play_session: Session
) -> None:
    play_turns(play_session, 1)
    client.force_login(alice)

    response = client.post(memory_url(play_session, end=True), **hx())

    assert response.status_code == 200
    assert b"You take step 0." in response.content
    assert b"Session ended" in response.content


def test_another_players_session_is_not_found(
    client: Client, bob: Any, play_session: Session
) -> None:
    client.force_login(bob)

    assert client.get(memory_url(play_session)).status_code == 404
    assert client.post(memory_url(play_session), {"memory": "Mine now."}).status_code == 404
    assert client.post(memory_url(play_session, end=True)).status_code == 404
    assert memory_of(play_session) == ""


def test_an_anonymous_visitor_is_not_found(client: Client, play_session: Session) -> None:
    assert client.get(memory_url(play_session)).status_code == 404


def test_ending_needs_a_post(client: Client, alice: Any, play_session: Session) -> None:
    client.force_login(alice)

    assert client.get(memory_url(play_session, end=True)).status_code == 405
    assert client.put(memory_url(play_session), json.dumps({})).status_code == 405


# --- after a turn ----------------------------------------------------------------------------


async def test_a_turn_over_the_count_queues_the_block(
    alice: Any, play_session: Session, settings: Any
) -> None:
    from asgiref.sync import sync_to_async

    from tests.play.conftest import connect

    settings.FABULA_MEMORY_MESSAGES = 3  # the greeting, the player's message and the reply
    client, _ = await connect(play_session.pk, alice)
    await client.send(type="send", text="I open the door")
    await client.settle()
    await client.close()

    memory = ""
    for _ in range(100):  # the block is written after the turn's last frame went out
        memory = await sync_to_async(memory_of)(play_session)
        if memory:
            break
        await asyncio.sleep(0.05)
    assert memory.startswith("Dawn over the salt, User.\n")
