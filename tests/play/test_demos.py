"""Demos (issue 11 §6, §8): a game-master session recorded on both SDKs replays step by step at
zero cost, the server choosing each step; the steps a demo carries are checked on import; the
pages that download, publish, upload, remove and watch a world's demo check who may."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client as HttpClient
from django.urls import reverse

from play import demos
from play.errors import PlayError
from play.models import Session, WorldDemo
from play.recordings import export_recording, import_recording
from play.sessions import start_session
from studio.publishing import publish_world
from tests.play.test_gm_play import (
    act,
    connect,
    gm_data,
    gm_session,
    gm_version,
    of_type,
    publish_gm,
    reply_of,
)
from tests.support.model_server import ModelServer, Reply

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["gm_version"]  # the fixture, imported for this module's tests

HUM = "You hum; Hilda smiles at the tune."
LOOKUP = {"name": "lookup_rule", "arguments": {"topic": "death-saves"}}
CLIMB = {  # only the master asks for a check (issue 33 §2)
    "name": "request_skill_check",
    "arguments": {"check": "athletics", "dc": 15, "purpose": "climb"},
}


def close(narration: str) -> dict[str, Any]:
    return {"name": "log_event", "arguments": {"narration": narration, "suggestions": ["Wait"]}}


@pytest.fixture(params=["live_openai", "live_anthropic"])
def server(request: Any) -> ModelServer:
    server: ModelServer = request.getfixturevalue(request.param)
    return server


ROUTE: list[dict[str, Any]] = [
    {"type": "action", "action_id": "click:location:square"},
    {"type": "send", "text": "I hum an old song"},
    {"type": "send", "text": "climb the well"},
    {"type": "roll"},
]


async def record(
    user: Any, version: Any, server: ModelServer, seed: int = 21
) -> tuple[Session, list[Any]]:
    """Play ROUTE in record mode; returns the session and each step's frames."""
    server.script(
        [
            Reply(text="", tool_calls=(LOOKUP,)),
            Reply(text="", tool_calls=(close(HUM),)),
            Reply(text="", tool_calls=(CLIMB,)),
            Reply(text="", tool_calls=(close("You test the first stone."),)),
            *[Reply(text="", tool_calls=(close("The stones hold."),))] * 4,
        ]
    )
    session = await gm_session(user, version, character="ren", mode="record", seed=seed)
    client = await connect(session, user)
    played = [await act(client, **frame) for frame in ROUTE]
    await client.close()
    return session, played


def shown(frames: list[dict[str, Any]]) -> tuple[Any, ...]:
    """What a step showed the player: the reply's words and choices, and the dice."""
    reply = reply_of(frames)
    rolls = [f["rolls"] for f in of_type(frames, "roll-result")]
    return reply["content"], reply["choices"], rolls


async def test_a_recorded_game_master_session_replays_step_by_step_at_zero_cost(
    alice, bob, gm_version, server
):
    recorded, played = await record(alice, gm_version, server)
    demo = await sync_to_async(export_recording)(
        await sync_to_async(Session.objects.get)(pk=recorded.pk), alice
    )
    assert demo["steps"] == [
        {"kind": "action", "action": "click:location:square"},
        {"kind": "message", "text": "I hum an old song"},
        {"kind": "message", "text": "climb the well"},
        {"kind": "action", "action": "roll"},
    ]
    assert demo["character"] == "ren"
    asked = len(server.requests)

    replay = await sync_to_async(import_recording)(bob, demo)
    assert "dice_seed" not in demo and replay.dice_seed != recorded.dice_seed  # from the rolls
    client = await connect(replay, bob)
    replayed = []
    for number in range(1, len(ROUTE) + 1):
        frames = await act(client, type="demo_step")
        assert frames[-1] != {"type": "demo"}  # the demo frame follows the turn
        progress = await client.until("demo")
        assert progress == {"type": "demo", "played": number, "total": len(ROUTE)}
        replayed.append(frames)
    await client.send(type="demo_step")
    over = await client.until("error")
    await client.close()

    assert over["error"] == "The demo is over: every step has been played."
    assert [shown(f) for f in replayed] == [shown(f) for f in played]
    assert shown(replayed[1])[0] == HUM
    assert shown(replayed[3])[2]  # the roll's breakdown, the same faces
    assert len(server.requests) == asked  # not one model call
    costs = await sync_to_async(list)(replay.messages.values_list("cost", flat=True))
    assert all(cost == 0 for cost in costs)


async def test_a_demo_step_in_a_session_that_is_no_demo_is_refused(alice, gm_version):
    session = await gm_session(alice, gm_version)
    client = await connect(session, alice)
    await client.send(type="demo_step")
    error = await client.until("error")
    await client.close()
    assert error["error"] == "This session is not a demo."
    assert await sync_to_async(session.messages.count)() == 1  # the greeting alone


# --- the steps a demo carries ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("steps", "field"),
    [
        ("all of them", "steps"),
        ([{"kind": "dance"}], "steps[0].kind"),
        ([{"kind": "message", "text": "  "}], "steps[0].text"),
        ([{"kind": "message", "text": "hi"}, {"kind": "action", "action": 7}], "steps[1].action"),
        ([{"kind": "action", "action": "x" * 201}], "steps[0].action"),
        ([{"kind": "message", "text": ["hi"]}], "steps[0].text"),
    ],
)
def test_a_demos_steps_are_checked_and_the_error_names_the_step(steps, field):
    with pytest.raises(PlayError) as caught:
        demos.clean_steps(steps)
    assert caught.value.field == field


def test_a_demo_from_before_steps_replays_its_messages():
    assert demos.clean_steps(None, ["I knock", "", 3, "I push"]) == [
        {"kind": "message", "text": "I knock"},
        {"kind": "message", "text": "I push"},
    ]


def test_a_rules_follow_up_call_is_not_a_step_of_the_player():
    saved = demos.after_turn({"inputs": []}, None, "3:action", {}, demos.Step("action"))
    assert saved["inputs"] == []
    roll = demos.after_turn(saved, None, "4:action", {}, demos.Step("action", action="roll"))
    assert roll["inputs"] == [{"kind": "action", "action": "roll"}]


def test_replay_counts_its_steps_and_keeps_the_recorded_clocks():
    saved = {"turns": {"1:message": {"now": "then"}}, "steps": [{"kind": "continue"}]}
    after = demos.after_turn(saved, None, "1:message", {"now": "now"}, demos.Step("continue"))
    assert after["turns"] == {"1:message": {"now": "then"}}
    assert after["inputs"] == [{"kind": "continue"}]
    recorded = demos.after_turn(
        {}, {"format": "r"}, "1:message", {"now": "now"}, demos.Step("continue")
    )
    assert recorded == {
        "format": "r",
        "turns": {"1:message": {"now": "now"}},
        "inputs": [{"kind": "continue"}],
    }


# --- the pages -------------------------------------------------------------------------------


def browser(user: Any = None) -> HttpClient:
    client = HttpClient()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def recorded(alice: Any, version: Any) -> Session:
    return start_session(alice, version, mode="record", dice_seed=5)


def test_a_recorded_session_downloads_as_a_signed_demo_only_for_its_player(alice, bob, recorded):
    url = reverse("play:demo_download", args=[recorded.pk])
    response = browser(alice).get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment; filename=")
    demo = json.loads(response.content)
    assert demo["format"] == "fabula-demo" and demo["signature"]
    assert browser(bob).get(url).status_code == 404
    live = start_session(alice, recorded.world_version, mode="live")
    assert browser(alice).get(reverse("play:demo_download", args=[live.pk])).status_code == 404


def test_the_play_page_offers_the_demo_to_a_recorded_sessions_creator(
    alice, bob, recorded, version
):
    page = browser(alice).get(reverse("play:session", args=[recorded.pk])).content.decode()
    assert "data-demo-download" in page and "data-demo-publish" in page
    own = start_session(bob, version, mode="record")
    page = browser(bob).get(reverse("play:session", args=[own.pk])).content.decode()
    assert "data-demo-download" in page and "data-demo-publish" not in page


def test_only_the_worlds_creator_publishes_a_recording_as_its_demo(alice, bob, recorded, version):
    response = browser(alice).post(reverse("play:demo_publish", args=[recorded.pk]))
    assert response.status_code == 302
    demo = WorldDemo.objects.get(world=version.world)
    assert demo.data["world"]["version_id"] == version.pk
    own = start_session(bob, version, mode="record")
    assert browser(bob).post(reverse("play:demo_publish", args=[own.pk])).status_code == 403
    assert browser(bob).post(reverse("play:demo_publish", args=[recorded.pk])).status_code == 404


def test_anybody_watches_a_published_demo_as_their_own_replay(alice, bob, recorded, version):
    demos.publish(version.world, export_recording(recorded, recorded.owner), "Tour")
    gallery = browser().get(reverse("gallery")).content.decode()
    assert "data-watch-demo" in gallery
    url = reverse("play:demo_watch", args=[version.world.pk])
    response = browser(bob).post(url)
    session = Session.objects.get(owner=bob)
    assert response.url == reverse("play:session", args=[session.pk])
    assert session.mode == "replay" and session.dice_seed != recorded.dice_seed  # its own secret
    guest = browser()
    guest.post(url)
    watched = Session.objects.get(owner=None, mode="replay")
    assert guest.get(reverse("play:session", args=[watched.pk])).status_code == 200
    WorldDemo.objects.all().delete()
    assert browser(bob).post(url).status_code == 404


def upload(user: Any, world_id: int, content: bytes) -> Any:
    url = reverse("play:demo_upload", args=[world_id])
    return browser(user).post(url, {"demo": SimpleUploadedFile("d.json", content)}, follow=True)


def test_a_demo_file_is_published_from_the_studio_and_a_bad_one_is_refused(
    alice, bob, recorded, version
):
    demo = export_recording(recorded, recorded.owner)
    world_id = version.world.pk
    page = upload(alice, world_id, json.dumps(demo).encode())
    assert WorldDemo.objects.get(world_id=world_id).data == demo
    assert "data-world-demo" in page.content.decode()
    forged = {**demo, "dice_seed": 6}
    page = upload(alice, world_id, json.dumps(forged).encode()).content.decode()
    assert "The demo was not published: This demo was not exported by this site" in page
    assert "(signature)" in page
    assert "This file is not JSON" in upload(alice, world_id, b"{nope").content.decode()
    assert upload(bob, world_id, json.dumps(demo).encode()).status_code == 403
    assert browser(bob).post(reverse("play:demo_remove", args=[world_id])).status_code == 403
    browser(alice).post(reverse("play:demo_remove", args=[world_id]))
    assert not WorldDemo.objects.exists()


def test_a_demo_of_another_world_is_refused_by_the_studio(alice, recorded, gm_version):
    page = upload(
        alice, gm_version.world.pk, json.dumps(export_recording(recorded, recorded.owner)).encode()
    )
    assert "This demo was recorded on another world. (world)" in page.content.decode()
    assert not WorldDemo.objects.exists()


def test_a_game_master_worlds_recording_stays_with_its_creator(alice, bob, gm_version):
    """Its exchanges are the master's and directors' raw replies, written from the secrets."""
    own = start_session(alice, gm_version, mode="record")
    assert browser(alice).get(reverse("play:demo_download", args=[own.pk])).status_code == 200
    theirs = start_session(bob, gm_version, mode="record")
    page = browser(bob).get(reverse("play:session", args=[theirs.pk])).content.decode()
    assert "data-demo-card" in page and "data-demo-download" not in page
    response = browser(bob).get(reverse("play:demo_download", args=[theirs.pk]))
    assert response.status_code == 403
    assert "The secrets stay with the creator" in response.content.decode()
    api = browser(bob).get(f"/api/play/sessions/{theirs.pk}/recording")
    assert api.status_code == 403
    assert "only its creator downloads them" in api.json()["detail"]


def test_a_watcher_of_a_game_master_demo_cannot_take_its_recording_away(alice, bob, gm_version):
    demos.publish(
        gm_version.world,
        export_recording(start_session(alice, gm_version, mode="record"), alice),
        "Tour",
    )
    browser(bob).post(reverse("play:demo_watch", args=[gm_version.world.pk]))
    replay = Session.objects.get(owner=bob, mode="replay")
    assert browser(bob).get(f"/api/play/sessions/{replay.pk}/recording").status_code == 403
    with pytest.raises(PermissionDenied):
        export_recording(replay, None)


def test_a_version_published_remixable_lets_its_players_take_their_recordings(alice, bob):
    version = publish_gm(alice, gm_data())
    remixable = publish_world(version.world, "open", remixable_secrets=True)
    theirs = start_session(bob, remixable, mode="record")
    assert browser(bob).get(reverse("play:demo_download", args=[theirs.pk])).status_code == 200
    closed = start_session(bob, version, mode="record")
    assert browser(bob).get(reverse("play:demo_download", args=[closed.pk])).status_code == 403
