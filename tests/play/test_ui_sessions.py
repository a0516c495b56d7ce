"""A world UI's session management and model choice (seed 004 "会话管理", "模型选择"; issue 15):
``POST /play/<session>/ui/sessions/`` and ``…/ui/models/`` (play.ui_sessions, play.ui_models),
and ai.complete's usage in the session's totals (play.costs)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from play.costs import session_usage
from play.models import Message, ModelPins, ProviderSetting, Session, UiCompletion
from play.sessions import branch_from_message, start_session
from studio.models import WorldVersion
from studio.publishing import publish_world
from tests.factories import make_world
from tests.play.conftest import PLAY_WORLD_ENTRIES

pytestmark = pytest.mark.django_db


@pytest.fixture
def version(alice: Any) -> WorldVersion:
    return publish_world(make_world(alice, entries=PLAY_WORLD_ENTRIES))


@pytest.fixture
def session(alice: Any, version: WorldVersion) -> Session:
    return start_session(alice, version, mode="offline", persona_data={"name": "Ilse"})


@pytest.fixture
def site_models(settings: Any) -> None:
    settings.FABULA_MODEL = "dune-small"
    settings.FABULA_SITE_MODELS = ["dune-large"]


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ask(client: Client, session: Session, kind: str, **body: Any) -> Any:
    url = reverse(f"play:ui_{kind}", args=[session.pk])
    return client.post(url, json.dumps(body), content_type="application/json")


def world_id(session: Session) -> str:
    return str(session.world_id)


# --- sessions --------------------------------------------------------------------------------


def test_list_sessions_gives_the_players_own_sessions_of_this_world(session, alice, bob, version):
    other = start_session(alice, version, mode="offline")
    bobs = start_session(bob, version, mode="offline")
    elsewhere = start_session(alice, publish_world(make_world(alice)), mode="offline")
    answer = ask(client_of(alice), session, "sessions", action="list", worldId=world_id(session))
    assert answer.status_code == 200
    listed = {row["id"]: row for row in answer.json()["sessions"]}
    assert set(listed) == {str(session.pk), str(other.pk)}
    assert str(bobs.pk) not in listed and str(elsewhere.pk) not in listed
    assert listed[str(session.pk)]["messageCount"] == 1  # the greeting
    assert set(listed[str(session.pk)]) == {"id", "title", "updatedAt", "messageCount"}


def test_list_sessions_takes_the_world_definitions_id_too(session, alice):
    definition_id = session.world_version.definition["id"]
    answer = ask(client_of(alice), session, "sessions", action="list", worldId=definition_id)
    assert [row["id"] for row in answer.json()["sessions"]] == [str(session.pk)]


def test_another_worlds_id_is_refused(session, alice):
    answer = ask(client_of(alice), session, "sessions", action="list", worldId="999999")
    assert answer.status_code == 400
    assert answer.json()["field"] == "worldId"


def test_create_session_starts_the_same_version_with_the_same_persona_and_mode(session, alice):
    Session.objects.filter(pk=session.pk).update(model="dune-large")
    answer = ask(client_of(alice), session, "sessions", action="create", worldId=world_id(session))
    assert answer.status_code == 200
    created = Session.objects.get(pk=answer.json()["id"])
    assert answer.json()["url"] == f"/play/{created.pk}/"
    assert created.owner == alice and created.world_version_id == session.world_version_id
    assert created.mode == "offline" and created.persona_data == {"name": "Ilse"}
    assert created.model == "dune-large"
    assert created.messages.filter(is_greeting=True).exists()


def test_restart_chat_makes_a_new_session_of_the_world(session, alice):
    answer = ask(client_of(alice), session, "sessions", action="restart")
    assert answer.status_code == 200
    created = Session.objects.get(pk=answer.json()["id"])
    assert created.pk != session.pk and created.world_id == session.world_id


def test_delete_session_removes_one_of_the_players_own(session, alice, version):
    other = start_session(alice, version, mode="offline")
    client = client_of(alice)
    answer = ask(client, session, "sessions", action="delete", sessionId=str(other.pk))
    assert answer.json() == {"current": False, "url": None}
    assert not Session.objects.filter(pk=other.pk).exists()
    answer = ask(client, session, "sessions", action="delete", sessionId=str(session.pk))
    assert answer.json() == {"current": True, "url": reverse("play:session_list")}
    assert not Session.objects.filter(pk=session.pk).exists()


def test_another_players_session_is_never_deleted(session, alice, bob, version):
    bobs = start_session(bob, version, mode="offline")
    answer = ask(client_of(alice), session, "sessions", action="delete", sessionId=str(bobs.pk))
    assert answer.status_code == 400
    assert answer.json()["error"] == "No session of yours in this world has that id."
    assert Session.objects.filter(pk=bobs.pk).exists()


def test_another_player_cannot_call_on_someone_elses_session(session, bob):
    client = client_of(bob)
    calls = [
        ("sessions", {"action": "list", "worldId": world_id(session)}),
        ("sessions", {"action": "restart"}),
        ("sessions", {"action": "delete", "sessionId": str(session.pk)}),
        ("models", {"action": "set", "model": "dune-small"}),
    ]
    for kind, body in calls:
        assert ask(client, session, kind, **body).status_code == 404
    assert Session.objects.count() == 1
    session.refresh_from_db()
    assert session.model == ""


def test_branch_context_names_the_parent_session_and_message(session, alice):
    client = client_of(alice)
    plain = ask(client, session, "sessions", action="branch").json()
    assert plain == {
        "sessionId": str(session.pk),
        "parentSessionId": None,
        "branchedFromMessageId": None,
    }
    greeting = session.messages.get(is_greeting=True)
    branch = branch_from_message(session, greeting.pk)
    answer = ask(client, branch, "sessions", action="branch").json()
    assert answer == {
        "sessionId": str(branch.pk),
        "parentSessionId": str(session.pk),
        "branchedFromMessageId": greeting.pk,
    }


def guest_session(version: WorldVersion) -> tuple[Client, Session]:
    client = Client()
    client.post(reverse("play:preview", args=[version.pk]))
    return client, Session.objects.get(owner=None)


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("sessions", {"action": "list"}),
        ("sessions", {"action": "create"}),
        ("sessions", {"action": "restart"}),
        ("sessions", {"action": "branch"}),
        ("models", {"action": "list"}),
        ("models", {"action": "set", "model": "dune-small"}),
        ("models", {"action": "pin", "model": "dune-small"}),
        ("models", {"action": "provider", "provider": "official"}),
    ],
)
def test_a_guest_preview_is_refused(version, site_models, kind, body):
    client, guest = guest_session(version)
    answer = ask(client, guest, kind, **{"worldId": str(guest.world_id), **body})
    assert answer.status_code == 400
    assert answer.json()["field"] == "capabilities"
    assert "guest preview" in answer.json()["error"]
    assert Session.objects.count() == 1


def test_the_info_gives_the_signed_in_player_as_current_user(session, alice):
    info = client_of(alice).get(reverse("play:ui_info", args=[session.pk])).json()
    assert info["currentUser"] == {"id": str(alice.pk), "name": "alice", "image": None}
    assert info["preferredProvider"] == "official"


def test_a_guest_has_no_current_user(version):
    client, guest = guest_session(version)
    assert client.get(reverse("play:ui_info", args=[guest.pk])).json()["currentUser"] is None


# --- models ----------------------------------------------------------------------------------


def test_get_models_lists_the_site_models_and_the_players_own(session, alice, site_models):
    ProviderSetting.objects.create(user=alice, provider="openai", model="my-llama")
    answer = ask(client_of(alice), session, "models", action="list").json()
    assert answer["models"] == [
        {"id": "dune-large", "name": "dune-large", "provider": "official", "contextLength": 200000},
        {"id": "dune-small", "name": "dune-small", "provider": "official", "contextLength": 200000},
        {"id": "my-llama", "name": "my-llama", "provider": "private", "contextLength": 200000},
    ]
    assert answer["pinnedModels"] == [] and answer["recentlyUsed"] == []


def test_set_model_sets_the_sessions_override(session, alice, site_models):
    answer = ask(client_of(alice), session, "models", action="set", model="dune-large")
    assert answer.status_code == 200
    assert answer.json()["selectedModel"] == "dune-large"
    session.refresh_from_db()
    assert session.model == "dune-large"


def test_a_model_the_player_may_not_use_is_refused_by_name(session, alice, site_models):
    answer = ask(client_of(alice), session, "models", action="set", model="gpt-expensive")
    assert answer.status_code == 400
    assert answer.json()["error"] == "The model 'gpt-expensive' is not one you may use here."
    session.refresh_from_db()
    assert session.model == ""


def test_pins_are_kept_per_user(session, alice, site_models, version):
    client = client_of(alice)
    ask(client, session, "models", action="pin", model="dune-small")
    ask(client, session, "models", action="pin", model="dune-large")
    assert ModelPins.objects.get(user=alice).pinned == ["dune-small", "dune-large"]
    other = start_session(alice, version, mode="offline")
    assert ask(client, other, "models", action="list").json()["pinnedModels"] == [
        "dune-small",
        "dune-large",
    ]
    answer = ask(client, session, "models", action="unpin", model="dune-small")
    assert answer.json() == {"pinnedModels": ["dune-large"]}
    refused = ask(client, session, "models", action="pin", model="not-offered")
    assert refused.json()["error"] == "The model 'not-offered' is not one you may use here."


def test_recently_used_comes_from_the_players_replies(session, alice, site_models):
    Message.objects.create(session=session, position=1, role="assistant", model="dune-large")
    Session.objects.filter(pk=session.pk).update(model="dune-small")
    answer = ask(client_of(alice), session, "models", action="list").json()
    assert answer["recentlyUsed"] == ["dune-small", "dune-large"]


def test_preferred_provider_switches_between_the_site_and_the_players_own(
    session, alice, site_models
):
    client = client_of(alice)
    refused = ask(client, session, "models", action="provider", provider="private").json()
    assert refused["ok"] is False and "My model" in refused["error"]
    ProviderSetting.objects.create(user=alice, provider="openai", model="my-llama")
    info = client.get(reverse("play:ui_info", args=[session.pk])).json()
    assert info["preferredProvider"] == "private" and info["model"]["name"] == "my-llama"
    answer = ask(client, session, "models", action="provider", provider="official").json()
    assert answer["ok"] is True and answer["provider"] == "official"
    assert answer["selectedModel"] == "dune-small"
    session.refresh_from_db()
    assert session.provider_preference == "official"
    info = client.get(reverse("play:ui_info", args=[session.pk])).json()
    assert info["preferredProvider"] == "official" and info["model"]["name"] == "dune-small"
    answer = ask(client, session, "models", action="set", model="my-llama").json()
    assert answer["preferredProvider"] == "private" and answer["selectedModel"] == "my-llama"


def test_an_unknown_provider_is_refused(session, alice):
    answer = ask(client_of(alice), session, "models", action="provider", provider="mine")
    assert answer.status_code == 400 and answer.json()["field"] == "provider"


# --- cost ------------------------------------------------------------------------------------


def test_ai_complete_usage_is_in_the_sessions_totals(session):
    before = session_usage(session.pk)
    UiCompletion.objects.create(
        session=session, model="m", input_tokens=30, output_tokens=12, cost=Decimal("0.0025")
    )
    after = session_usage(session.pk)
    assert after["input_tokens"] == before["input_tokens"] + 30
    assert after["output_tokens"] == before["output_tokens"] + 12
    assert after["cost"] == pytest.approx(before["cost"] + 0.0025)


def test_session_and_model_requests_need_the_csrf_token(session, alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    for kind, body in (("sessions", {"action": "restart"}), ("models", {"action": "list"})):
        assert ask(client, session, kind, **body).status_code == 403
    assert Session.objects.count() == 1
