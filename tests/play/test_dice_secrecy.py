"""The dice are the server's (issue 32 §3): a player never learns the session's dice seed or a
roll still to come. No payload, frame, page or demo carries the seed; a demo carries the rolls
already made and replays from them; taking the story back (revert, delete, checkpoint) or
branching it never brings back faces the player has seen."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client as HttpClient
from django.urls import reverse

from play import dice
from play.messages import delete_message, restore_checkpoint, revert_to_message, save_checkpoint
from play.models import Message, Session
from play.recordings import export_recording
from play.sessions import branch_from_message
from tests.play.test_demos import record
from tests.play.test_gm_play import act, connect, gm_session, gm_version, of_type

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["gm_version"]  # the fixture, imported for this module's tests

SECRET = 281_474_976_710_597  # a 48-bit seed: its digits appear nowhere by chance


def faces(frames: list[dict[str, Any]]) -> tuple[int, ...]:
    [result] = of_type(frames, "roll-result")
    return tuple(face for roll in result["rolls"] for face in roll["faces"])


@sync_to_async
def last_reply(session: Session) -> Message:
    return Message.objects.filter(session=session, role="assistant").order_by("position").last()


def _rewind(how: str, session: Session, climb: Message, mark: Any) -> None:
    session.refresh_from_db()
    if how == "revert":
        revert_to_message(session, climb.pk)
    elif how == "delete":
        delete_message(session, session.messages.order_by("position").last().pk)
    else:
        restore_checkpoint(session, mark.pk)


@pytest.mark.parametrize("how", ["revert", "delete", "checkpoint"])
async def test_taking_the_story_back_never_brings_back_the_faces_the_player_saw(
    alice, gm_version, how
):
    session = await gm_session(alice, gm_version, seed=11)
    client = await connect(session, alice)
    await act(client, type="send", text="climb the well")  # the master asks for a roll
    climb = await last_reply(session)
    mark = await sync_to_async(save_checkpoint)(session, "before the roll")
    seen = []
    for _ in range(4):
        seen.append(faces(await act(client, type="roll")))
        await sync_to_async(_rewind)(how, session, climb, mark)
        assert (await sync_to_async(Session.objects.get)(pk=session.pk)).state["gm"]["pending"]
    await client.close()
    assert len(set(seen)) > 1, f"the same faces came back after each {how}: {seen}"


def test_a_branch_draws_a_dice_secret_of_its_own(alice, play_session):
    greeting = play_session.messages.get(is_greeting=True)
    branch = branch_from_message(play_session, greeting.pk)
    assert branch.dice_seed != play_session.dice_seed
    assert branch.turn_version == play_session.turn_version  # same fences: the secret must differ


def test_each_turn_rolls_from_a_seed_that_says_nothing_of_the_next():
    seeds = [dice.turn_seed(SECRET, fence) for fence in range(1, 50)]
    assert len(set(seeds)) == len(seeds)
    assert SECRET not in seeds and dice.turn_seed(SECRET, dice.START) not in seeds
    assert dice.turn_seed(SECRET + 1, 1) != seeds[0]


async def test_the_seed_reaches_no_page_payload_or_frame_of_the_player(alice, gm_version):
    session = await gm_session(alice, gm_version, seed=SECRET)
    client = await connect(session, alice)
    await act(client, type="send", text="climb the well")
    await act(client, type="roll")
    await client.close()
    session = await sync_to_async(Session.objects.get)(pk=session.pk)
    coming = dice.turn_seed(SECRET, session.turn_version + 1)  # the next turn's dice
    browser = HttpClient()
    await sync_to_async(browser.force_login)(alice)
    read = [
        reverse("play:session", args=[session.pk]),
        reverse("play:memory", args=[session.pk]),
        reverse("play:ui_info", args=[session.pk]),
        f"/api/play/sessions/{session.pk}",
        f"/api/play/sessions/{session.pk}/messages",
        "/api/play/sessions",
    ]
    answers = [await sync_to_async(browser.get)(url) for url in read]
    assert [a.status_code for a in answers] == [200] * len(read)
    pages = [a.content.decode() for a in answers]
    for text in [*pages, json.dumps(client.frames)]:
        assert str(SECRET) not in text and str(coming) not in text


async def test_a_demo_carries_the_rolls_made_never_the_seed_or_a_roll_to_come(
    alice, gm_version, live_openai
):
    session, played = await record(alice, gm_version, live_openai, seed=SECRET)
    session = await sync_to_async(Session.objects.get)(pk=session.pk)
    demo = await sync_to_async(export_recording)(session, alice)
    text = json.dumps(demo)
    assert "dice_seed" not in demo and str(session.dice_seed) not in text
    for fence in range(session.turn_version + 1, session.turn_version + 20):
        assert str(dice.turn_seed(session.dice_seed, fence)) not in text
    made = {key: turn["dice"] for key, turn in demo["turns"].items()}
    assert len(made) == len(played) + 1  # the greetings' and each step's
