"""The play page, the session list, starting a session, the guest preview, deleting."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from play.models import Persona, Session
from play.personas import create_persona
from play.sessions import start_playtest, start_session
from studio.worlds import export_world_json
from tests.studio.view_helpers import errors_of, hx, is_partial

pytestmark = pytest.mark.django_db


def config_of(response: Any) -> dict[str, Any]:
    html = response.content.decode()
    match = re.search(
        r'<script id="play-config-[^"]+" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, "the play page carries its client config"
    return json.loads(match.group(1))


# --- the play page ---------------------------------------------------------------------------


def test_play_page_renders_the_chat_and_the_client_config(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:session", args=[play_session.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "data-play-root" in html
    assert "Dawn over the salt" in html  # the greeting, rendered on the server for the first paint
    config = config_of(response)
    assert config["sessionId"] == str(play_session.pk)
    assert config["wsPath"] == f"/ws/play/{play_session.pk}/"
    assert [v["id"] for v in config["variables"]] == ["health", "gold"]
    assert config["variables"][0] == {
        "id": "health",
        "name": "Health",
        "type": "number",
        "min": 0.0,
        "max": 100.0,
        "default": 100,
    }
    assert config["customUiUrl"] is None
    assert config["isGuest"] is False


def test_play_page_never_sends_entries_rules_or_raw_replies(
    client: Client, alice: Any, play_session: Session
) -> None:
    play_session.messages.update(raw="SECRET-RAW [gold: 5]")
    client.force_login(alice)
    html = client.get(reverse("play:session", args=[play_session.pk])).content.decode()
    assert "SECRET-RAW" not in html
    assert "You narrate the salt road" not in html  # the system entry stays on the server
    assert "open-chest" not in html  # rules too


def test_play_page_escapes_creator_and_model_html(
    client: Client, alice: Any, play_session: Session
) -> None:
    play_session.messages.update(content='<img src=x onerror="alert(1)"> **bold**')
    client.force_login(alice)
    html = client.get(reverse("play:session", args=[play_session.pk])).content.decode()
    assert "<img src=x" not in html
    assert '&lt;img src=x onerror="alert(1)"&gt; <strong>bold</strong>' in html


def test_play_page_of_another_users_session_is_404(
    client: Client, bob: Any, play_session: Session
) -> None:
    client.force_login(bob)
    assert client.get(reverse("play:session", args=[play_session.pk])).status_code == 404


def test_play_page_without_login_or_guest_key_is_404(client: Client, play_session: Session) -> None:
    assert client.get(reverse("play:session", args=[play_session.pk])).status_code == 404


def test_play_page_refuses_post(client: Client, alice: Any, play_session: Session) -> None:
    client.force_login(alice)
    assert client.post(reverse("play:session", args=[play_session.pk])).status_code == 405


def test_play_page_lists_the_worlds_audio_with_resolved_urls(client: Client, alice: Any) -> None:
    from studio.publishing import publish_world
    from tests.factories import make_world

    world = make_world(
        alice,
        audioTracks=[
            {"id": "bgm-a", "type": "bgm", "url": "https://cdn.example/a.mp3", "loop": True},
            {"id": "bgm-b", "type": "bgm", "url": "javascript:alert(1)"},
            {"id": "sfx-c", "type": "sfx", "url": "@asset:00000000-0000-0000-0000-000000000000"},
        ],
        bgmPlaylist={"tracks": ["bgm-a"], "playMode": "shuffle", "gapSeconds": 2},
    )
    session = start_session(alice, publish_world(world), mode="offline")
    client.force_login(alice)
    audio = config_of(client.get(reverse("play:session", args=[session.pk])))["audio"]
    assert [t["id"] for t in audio["tracks"]] == ["bgm-a"]  # bad scheme and unknown asset dropped
    assert audio["tracks"][0]["url"] == "https://cdn.example/a.mp3"
    assert audio["playlist"]["playMode"] == "shuffle"
    assert audio["playlist"]["gapSeconds"] == 2


# --- the session list ------------------------------------------------------------------------


def test_session_list_shows_my_stories_only(
    client: Client,
    alice: Any,
    bob: Any,
    version: Any,
    play_session: Session,
    django_assert_num_queries: Any,
) -> None:
    start_session(alice, version, mode="offline")
    start_session(bob, version, mode="offline")
    start_playtest(alice, version.world, export_world_json(version.world), mode="offline")
    client.force_login(alice)
    with django_assert_num_queries(3):  # session, user, sessions with counts
        response = client.get(reverse("play:session_list"))
    assert response.status_code == 200
    assert response.content.decode().count('class="session-card"') == 2


def test_session_list_needs_login(client: Client) -> None:
    response = client.get(reverse("play:session_list"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_session_list_refuses_post(client: Client, alice: Any) -> None:
    client.force_login(alice)
    assert client.post(reverse("play:session_list")).status_code == 405


# --- starting --------------------------------------------------------------------------------


def test_start_shows_the_form_with_the_active_persona(
    client: Client, alice: Any, version: Any
) -> None:
    persona = create_persona(alice, {"name": "Mira"})
    client.force_login(alice)
    response = client.get(reverse("play:start", args=[version.pk]))
    assert response.status_code == 200
    assert f'<option value="{persona.pk}" selected>Mira</option>' in response.content.decode()


def test_start_creates_a_session_and_opens_it(client: Client, alice: Any, version: Any) -> None:
    persona = create_persona(alice, {"name": "Mira"})
    client.force_login(alice)
    response = client.post(
        reverse("play:start", args=[version.pk]), {"persona": persona.pk, "mode": "offline"}
    )
    session = Session.objects.get(owner=alice)
    assert response.status_code == 302
    assert response["Location"] == reverse("play:session", args=[session.pk])
    assert session.world_version == version
    assert session.mode == "offline"
    assert session.persona_data["name"] == "Mira"


def test_start_refuses_someone_elses_persona(
    client: Client, alice: Any, bob: Any, version: Any
) -> None:
    persona = Persona.objects.create(user=bob, name="Bob's")
    client.force_login(alice)
    response = client.post(
        reverse("play:start", args=[version.pk]), {"persona": persona.pk, "mode": "live"}
    )
    assert response.status_code == 400
    assert errors_of(response) == [
        "Select a valid choice. That choice is not one of the available choices."
    ]
    assert not Session.objects.filter(owner=alice).exists()


def test_start_refuses_an_unknown_mode(client: Client, alice: Any, version: Any) -> None:
    client.force_login(alice)
    response = client.post(reverse("play:start", args=[version.pk]), {"mode": "turbo"})
    assert response.status_code == 400
    assert errors_of(response) == [
        "Select a valid choice. turbo is not one of the available choices."
    ]


def test_start_of_an_unpublished_world_of_someone_else_is_404(
    client: Client, alice: Any, bob: Any, version: Any
) -> None:
    version.world.published = False
    version.world.save()
    client.force_login(bob)
    assert client.get(reverse("play:start", args=[version.pk])).status_code == 404


def test_start_sends_a_guest_to_the_preview(client: Client, version: Any) -> None:
    response = client.get(reverse("play:start", args=[version.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("play:preview", args=[version.pk])


def test_start_refuses_put(client: Client, alice: Any, version: Any) -> None:
    client.force_login(alice)
    assert client.put(reverse("play:start", args=[version.pk])).status_code == 405


# --- guest preview ---------------------------------------------------------------------------


def test_guest_preview_plays_without_an_account(client: Client, version: Any) -> None:
    assert client.get(reverse("play:preview", args=[version.pk])).status_code == 200
    response = client.post(reverse("play:preview", args=[version.pk]))
    session = Session.objects.get()
    assert response["Location"] == reverse("play:session", args=[session.pk])
    assert session.owner is None
    assert session.guest_key == client.session.session_key
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert config_of(page)["isGuest"] is True


def test_guest_preview_is_not_reachable_from_another_browser(version: Any) -> None:
    guest, stranger = Client(), Client()
    guest.post(reverse("play:preview", args=[version.pk]))
    session = Session.objects.get()
    assert stranger.get(reverse("play:session", args=[session.pk])).status_code == 404


def test_guest_preview_purges_previews_older_than_a_day(client: Client, version: Any) -> None:
    old = start_session(None, version, guest_key="x" * 32, mode="offline")
    Session.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(days=2))
    fresh = start_session(None, version, guest_key="y" * 32, mode="offline")
    client.post(reverse("play:preview", args=[version.pk]))
    remaining = set(Session.objects.values_list("pk", flat=True))
    assert old.pk not in remaining
    assert fresh.pk in remaining
    assert len(remaining) == 2


def test_guest_preview_of_an_unlisted_world_is_404(client: Client, version: Any) -> None:
    version.world.published = False
    version.world.save()
    assert client.get(reverse("play:preview", args=[version.pk])).status_code == 404


def test_preview_sends_a_logged_in_user_to_start(client: Client, alice: Any, version: Any) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:preview", args=[version.pk]))
    assert response["Location"] == reverse("play:start", args=[version.pk])


# --- deleting and the persona switch ---------------------------------------------------------


def test_delete_removes_the_session(client: Client, alice: Any, play_session: Session) -> None:
    client.force_login(alice)
    response = client.post(reverse("play:delete", args=[play_session.pk]))
    assert response["Location"] == reverse("play:session_list")
    assert not Session.objects.filter(pk=play_session.pk).exists()


def test_delete_by_htmx_answers_an_empty_fragment(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)
    response = client.post(reverse("play:delete", args=[play_session.pk]), **hx())
    assert response.status_code == 200
    assert response.content == b""


def test_delete_of_another_users_session_is_404(
    client: Client, bob: Any, play_session: Session
) -> None:
    client.force_login(bob)
    assert client.post(reverse("play:delete", args=[play_session.pk])).status_code == 404
    assert Session.objects.filter(pk=play_session.pk).exists()


def test_delete_refuses_get(client: Client, alice: Any, play_session: Session) -> None:
    client.force_login(alice)
    assert client.get(reverse("play:delete", args=[play_session.pk])).status_code == 405


def test_persona_switch_changes_who_the_player_is(
    client: Client, alice: Any, play_session: Session
) -> None:
    persona = create_persona(alice, {"name": "Mira", "backstory": "A cartographer."})
    client.force_login(alice)
    response = client.post(
        reverse("play:session_persona", args=[play_session.pk]), {"persona": persona.pk}, **hx()
    )
    assert response.status_code == 200
    assert is_partial(response)
    assert "Playing as Mira." in response.content.decode()
    play_session.refresh_from_db()
    assert play_session.persona_data["backstory"] == "A cartographer."


def test_persona_switch_refuses_another_users_persona(
    client: Client, alice: Any, bob: Any, play_session: Session
) -> None:
    persona = Persona.objects.create(user=bob, name="Bob's")
    client.force_login(alice)
    response = client.post(
        reverse("play:session_persona", args=[play_session.pk]), {"persona": persona.pk}, **hx()
    )
    assert response.status_code == 400
    assert errors_of(response) == [
        "Select a valid choice. That choice is not one of the available choices."
    ]


def test_persona_switch_without_htmx_redirects_to_the_page(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)
    response = client.post(reverse("play:session_persona", args=[play_session.pk]), {"persona": ""})
    assert response["Location"] == reverse("play:session", args=[play_session.pk])


def test_guest_preview_lasts_only_for_the_browser_session(client: Client, version: Any) -> None:
    client.post(reverse("play:preview", args=[version.pk]))
    assert client.session.get_expire_at_browser_close()


def test_purge_command_deletes_stale_guest_previews(version: Any) -> None:
    from io import StringIO

    from django.core.management import call_command

    old = start_session(None, version, guest_key="x" * 32, mode="offline")
    Session.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(days=2))
    out = StringIO()
    call_command("purge_guest_sessions", stdout=out)
    assert out.getvalue() == "Deleted 1 guest session(s).\n"
    assert not Session.objects.exists()


def test_the_play_client_can_say_the_socket_closed_because_you_signed_out(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)
    config = config_of(client.get(reverse("play:session", args=[play_session.pk])))
    assert config["strings"]["signedOut"] == "You signed out. Log in again to keep playing."
