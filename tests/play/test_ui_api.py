"""The server side of a world UI's API (seed 004 "useYumina()"; issue 15): the play socket's
``set_variable`` and ``inject_context`` frames and the ``/play/<session>/ui/`` requests."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from play.models import Session, UiCompletion, UiStorage
from play.sessions import start_session
from studio.assets import store_audio_asset
from studio.models import WorldVersion
from studio.publishing import publish_world
from tests.factories import audio_upload, make_world
from tests.play.conftest import PLAY_WORLD_ENTRIES, PLAY_WORLD_RULES, connect

pytestmark = pytest.mark.django_db(transaction=True)

VARIABLES = [
    {"id": "health", "name": "Health", "type": "number", "defaultValue": 100, "min": 0, "max": 100},
    {"id": "gold", "name": "Gold", "type": "number", "defaultValue": 0},
    {"id": "seed", "type": "number", "defaultValue": 7, "readOnly": True},
    {"id": "npcs", "type": "json", "defaultValue": {"aria": {"trust": 10}}},
    {"id": "met", "type": "boolean", "defaultValue": False},
]
PUBLIC = {
    "id": "map-note",
    "name": "Map note",
    "content": "The dunes shift at night.",
    "section": "chat-history",
    "tags": ["Public"],
}
SECRET = {"id": "twist", "name": "Twist", "content": "The guide is the thief.", "tags": ["plot"]}


@pytest.fixture
def ui_version(alice: Any) -> WorldVersion:
    world = make_world(
        alice,
        entries=[*PLAY_WORLD_ENTRIES, PUBLIC, SECRET],
        variables=VARIABLES,
        rules=PLAY_WORLD_RULES,
    )
    return publish_world(world)


@pytest.fixture
def session(alice: Any, ui_version: WorldVersion) -> Session:
    return start_session(alice, ui_version, mode="offline")


def values(session: Session) -> dict[str, Any]:
    session.refresh_from_db()
    return dict(session.state["values"])


async def ui_frame(session: Session, user: Any, **frame: Any) -> tuple[Any, dict[str, Any]]:
    client, _ = await connect(session.pk, user)
    await client.send(**frame)
    while True:
        reply = await client.receive()
        if reply["type"] in ("ui_done", "error", "busy"):
            await client.close()
            return client, reply


# --- setVariable -----------------------------------------------------------------------------


async def collect(client: Any, *kinds: str) -> dict[str, dict[str, Any]]:
    """The first frame of each kind (the relay's and the sender's own arrive in either order)."""
    got: dict[str, dict[str, Any]] = {}
    while set(kinds) - set(got):
        frame = await client.receive()
        got.setdefault(frame["type"], frame)
    return got


async def test_set_variable_clamps_like_a_directive_and_fires_the_rules(session, alice):
    client, _ = await connect(session.pk, alice)
    await client.send(type="set_variable", variable="health", value="15")
    got = await collect(client, "state", "notification", "ui_done")
    await client.close()
    assert got["state"]["values"]["health"] == 15
    assert got["notification"]["message"] == "You reel."  # the variable-crossed rule ran
    assert got["ui_done"]["frame"] == "set_variable"
    client, done = await ui_frame(session, alice, type="set_variable", variable="health", value=500)
    assert done["type"] == "ui_done"
    assert (await _values(session))["health"] == 100  # clamped to max


async def _values(session: Session) -> dict[str, Any]:
    from channels.db import database_sync_to_async

    return await database_sync_to_async(values)(session)


async def test_set_variable_reaches_into_a_json_variable(session, alice):
    _, done = await ui_frame(
        session, alice, type="set_variable", variable="npcs.aria.trust", value=40
    )
    assert done["type"] == "ui_done"
    assert (await _values(session))["npcs"] == {"aria": {"trust": 40}}


@pytest.mark.parametrize(
    ("variable", "value", "field", "words"),
    [
        ("nowhere", 1, "variable", "Unknown variable 'nowhere'"),
        ("seed", 1, "variable", "'seed' is read-only"),
        ("health", "lots", "value", "is not a number"),
        ("met", {"a": 1}, "value", "is not true or false"),
    ],
)
async def test_set_variable_refuses_by_name(session, alice, variable, value, field, words):
    _, reply = await ui_frame(session, alice, type="set_variable", variable=variable, value=value)
    assert reply["type"] == "error"
    assert reply["field"] == field
    assert words in reply["error"]
    assert (await _values(session))["seed"] == 7


async def test_set_variable_without_a_variable_is_refused(session, alice):
    _, reply = await ui_frame(session, alice, type="set_variable", value=1)
    assert reply["type"] == "error" and reply["field"] == "variable"


async def test_another_players_socket_cannot_set_a_variable(session, bob):
    _client, closed = await connect(session.pk, bob)
    assert closed["type"] == "websocket.close"


# --- injectContext ---------------------------------------------------------------------------


async def test_inject_context_waits_for_the_next_prompt(session, alice):
    _, done = await ui_frame(session, alice, type="inject_context", text="It rains.", role="user")
    assert done["type"] == "ui_done"
    await _state_has(session, "pending_context", [{"role": "user", "content": "It rains."}])


async def _state_has(session: Session, key: str, expected: Any) -> None:
    from channels.db import database_sync_to_async

    await database_sync_to_async(session.refresh_from_db)()
    assert session.state[key] == expected


async def test_inject_context_with_a_position_lasts_its_duration(session, alice):
    frame = {"type": "inject_context", "text": "Fog.", "position": "bottom", "duration": 3}
    _, done = await ui_frame(session, alice, **frame)
    assert done["type"] == "ui_done"
    from channels.db import database_sync_to_async

    await database_sync_to_async(session.refresh_from_db)()
    (directive,) = session.state["directives"].values()
    turn = session.state["turn"]
    assert directive["position"] == "bottom"
    assert directive["expires_after_turn"] == turn + 3


async def test_inject_context_refuses_an_unknown_position(session, alice):
    frame = {"type": "inject_context", "text": "Fog.", "position": "sideways"}
    _, reply = await ui_frame(session, alice, **frame)
    assert reply["type"] == "error" and reply["field"] == "position"


# --- info, entries, assets -------------------------------------------------------------------


def info(client: Client, session: Session) -> Any:
    return client.get(f"/play/{session.pk}/ui/info/")


def test_info_gives_only_public_entries_and_the_worlds_own_assets(session, alice, bob):
    asset = store_audio_asset(session.world, audio_upload())
    other_world = make_world(bob, name="Other")
    store_audio_asset(other_world, audio_upload())
    client = Client()
    client.force_login(alice)
    data = info(client, session).json()
    assert [e["id"] for e in data["entries"]] == ["map-note"]
    assert "The guide is the thief." not in json.dumps(data)
    assert list(data["assets"]) == [f"@asset:{asset.uid}"]
    assert data["model"] == {"provider": "offline", "name": data["model"]["name"]}


def test_another_player_gets_nothing_of_the_ui_api(session, bob):
    client = Client()
    client.force_login(bob)
    assert info(client, session).status_code == 404
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}]})
    url = f"/play/{session.pk}/ui/complete/"
    assert client.post(url, body, content_type="application/json").status_code == 404
    body = json.dumps({"key": "k", "value": "1"})
    url = f"/play/{session.pk}/ui/storage/"
    assert client.post(url, body, content_type="application/json").status_code == 404


# --- ai.complete -----------------------------------------------------------------------------


def complete(client: Client, session: Session, **ask: Any) -> Any:
    url = f"/play/{session.pk}/ui/complete/"
    return client.post(url, json.dumps(ask), content_type="application/json")


def test_ai_complete_answers_offline_without_a_live_model(session, alice):
    client = Client()
    client.force_login(alice)
    reply = complete(client, session, messages=[{"role": "user", "content": "Name a dune."}])
    assert reply.status_code == 200
    assert reply.json()["offline"] is True
    assert reply.json()["text"]
    assert UiCompletion.objects.filter(session=session).count() == 1


def test_ai_complete_refuses_a_prompt_past_its_cap(session, alice, settings):
    settings.FABULA_UI_AI_MAX_PROMPT_CHARS = 100
    client = Client()
    client.force_login(alice)
    reply = complete(client, session, messages=[{"role": "user", "content": "x" * 101}])
    assert reply.status_code == 400
    assert reply.json()["field"] == "messages"
    assert UiCompletion.objects.count() == 0


@pytest.mark.parametrize(
    ("ask", "field"),
    [
        ({}, "messages"),
        ({"messages": [{"role": "tool", "content": "x"}]}, "messages"),
        ({"messages": [{"role": "user", "content": "x"}], "maxTokens": 0}, "maxTokens"),
        ({"messages": [{"role": "user", "content": "x"}], "temperature": 9}, "temperature"),
    ],
)
def test_ai_complete_refuses_bad_parameters_by_name(session, alice, ask, field):
    client = Client()
    client.force_login(alice)
    reply = complete(client, session, **ask)
    assert reply.status_code == 400
    assert reply.json()["field"] == field


def test_ai_complete_is_counted_and_capped_on_a_live_model(
    alice, ui_version, live_openai, settings
):
    settings.FABULA_UI_AI_MAX_TOKENS = 50
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    session = start_session(alice, ui_version, mode="live")
    client = Client()
    client.force_login(alice)
    ask = {"messages": [{"role": "user", "content": "Name a dune."}], "maxTokens": 5000}
    first = complete(client, session, **ask).json()
    assert first["offline"] is False and first["model"] == "test-model"
    sent = live_openai.requests[-1].body
    assert sent["max_tokens"] == 50 or sent.get("max_completion_tokens") == 50
    row = UiCompletion.objects.get(session=session)
    assert row.output_tokens > 0
    second = complete(client, session, **ask).json()  # the day's one action is used
    assert second["quotaExhausted"] is True and second["offline"] is True


# --- storage ---------------------------------------------------------------------------------


def store(client: Client, session: Session, **body: Any) -> Any:
    url = f"/play/{session.pk}/ui/storage/"
    return client.post(url, json.dumps(body), content_type="application/json")


def test_storage_is_kept_per_world_and_per_session(session, alice, ui_version):
    client = Client()
    client.force_login(alice)
    assert store(client, session, key="seen", value='["dune"]').status_code == 200
    assert store(client, session, scope="session", key="draft", value='"hi"').status_code == 200
    later = start_session(alice, ui_version, mode="offline")
    data = info(client, later).json()["storage"]
    assert data == {"world": {"seen": ["dune"]}, "session": {}}
    assert info(client, session).json()["storage"]["session"] == {"draft": "hi"}
    assert store(client, session, key="seen", value=None).status_code == 200
    assert info(client, later).json()["storage"]["world"] == {}


def test_storage_takes_json_only(session, alice):
    client = Client()
    client.force_login(alice)
    reply = store(client, session, key="k", value="{not json")
    assert reply.status_code == 400 and reply.json()["field"] == "value"
    reply = store(client, session, key="", value="1")
    assert reply.status_code == 400 and reply.json()["field"] == "key"


def test_storage_refuses_a_write_past_the_worlds_quota(session, alice, settings):
    settings.FABULA_UI_STORAGE_QUOTA = 200
    client = Client()
    client.force_login(alice)
    assert store(client, session, key="a", value=json.dumps("x" * 100)).status_code == 200
    reply = store(client, session, scope="session", key="b", value=json.dumps("y" * 100))
    assert reply.status_code == 400 and reply.json()["field"] == "value"
    assert UiStorage.objects.get(scope="world").data == {"a": "x" * 100}
    assert not UiStorage.objects.filter(scope=str(session.pk)).exists()


def test_storage_needs_the_csrf_token(session, alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert store(client, session, key="k", value="1").status_code == 403


async def test_set_variable_is_refused_at_a_shared_table(session, alice):
    from channels.db import database_sync_to_async

    from play.models import Seat, Table

    def sit() -> None:
        table = Table.objects.create(host=session, invite_token="t-ui-api")
        Seat.objects.create(table=table, session=session, user=alice, character_id="hero")

    await database_sync_to_async(sit)()
    _, reply = await ui_frame(session, alice, type="set_variable", variable="health", value=5)
    assert reply["type"] == "error" and reply["field"] == "variable"
    assert (await _values(session))["health"] == 100
