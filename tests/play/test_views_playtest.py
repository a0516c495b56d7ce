"""The studio playtest: a throwaway session on the draft, reset, and the state inspector."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from engine.world import WorldValidationError
from play.models import Session
from play.playtests import reset_playtest
from studio.publishing import publish_world
from tests.studio.view_helpers import hx, is_partial

pytestmark = pytest.mark.django_db


def test_panel_offers_to_start_when_none_runs(client: Client, alice: Any, world: Any) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:playtest", args=[world.pk]), **hx())
    assert response.status_code == 200
    assert is_partial(response)
    html = response.content.decode()
    assert "No playtest running." in html
    assert "data-play-root" not in html


def test_panel_plays_the_running_playtest_with_its_inspector(
    client: Client, alice: Any, world: Any
) -> None:
    session = reset_playtest(alice, world, mode="offline")
    client.force_login(alice)
    html = client.get(reverse("play:playtest", args=[world.pk]), **hx()).content.decode()
    assert "data-play-root" in html
    assert f"/ws/play/{session.pk}/" in html
    assert reverse("play:playtest_state", args=[session.pk]) in html


def test_panel_without_htmx_is_a_whole_page(client: Client, alice: Any, world: Any) -> None:
    client.force_login(alice)
    response = client.get(reverse("play:playtest", args=[world.pk]))
    assert b"<html" in response.content


def test_reset_snapshots_the_draft_and_drops_the_old_playtest(
    client: Client, alice: Any, world: Any
) -> None:
    old = reset_playtest(alice, world, mode="offline")
    world.name = "The Salt Road, revised"
    world.save()
    client.force_login(alice)
    response = client.post(
        reverse("play:playtest_reset", args=[world.pk]), {"mode": "offline"}, **hx()
    )
    assert response.status_code == 200
    assert is_partial(response)
    session = Session.objects.get(owner=alice)
    assert session.pk != old.pk
    assert session.is_playtest
    assert session.mode == "offline"
    assert session.draft_definition["name"] == "The Salt Road, revised"
    assert f"/ws/play/{session.pk}/" in response.content.decode()


def test_reset_without_htmx_redirects_to_the_panel(client: Client, alice: Any, world: Any) -> None:
    client.force_login(alice)
    response = client.post(reverse("play:playtest_reset", args=[world.pk]))
    assert response["Location"] == reverse("play:playtest", args=[world.pk])
    assert Session.objects.get(owner=alice).mode == "live"


def test_reset_of_an_invalid_draft_keeps_the_old_playtest(
    client: Client, alice: Any, world: Any, monkeypatch: Any
) -> None:
    old = reset_playtest(alice, world, mode="offline")

    def broken(_: Any) -> Any:
        raise WorldValidationError(["variables[0].id: must be kebab-case"])

    monkeypatch.setattr("play.playtests.export_world_json", broken)
    client.force_login(alice)
    response = client.post(reverse("play:playtest_reset", args=[world.pk]), **hx())
    assert response.status_code == 422
    assert "variables[0].id: must be kebab-case" in response.content.decode()
    assert list(Session.objects.values_list("pk", flat=True)) == [old.pk]


def test_playtest_of_another_users_draft_is_404(client: Client, bob: Any, world: Any) -> None:
    client.force_login(bob)
    assert client.get(reverse("play:playtest", args=[world.pk])).status_code == 404
    assert client.post(reverse("play:playtest_reset", args=[world.pk])).status_code == 404
    assert not Session.objects.exists()


def test_playtest_of_a_published_world_is_read_only_for_others(
    client: Client, bob: Any, world: Any
) -> None:
    publish_world(world)
    client.force_login(bob)
    assert client.get(reverse("play:playtest", args=[world.pk])).status_code == 403
    assert client.post(reverse("play:playtest_reset", args=[world.pk])).status_code == 403


def test_playtest_needs_login(client: Client, world: Any) -> None:
    assert client.get(reverse("play:playtest", args=[world.pk])).status_code == 302
    assert client.post(reverse("play:playtest_reset", args=[world.pk])).status_code == 302


def test_playtest_methods(client: Client, alice: Any, world: Any) -> None:
    client.force_login(alice)
    assert client.post(reverse("play:playtest", args=[world.pk])).status_code == 405
    assert client.get(reverse("play:playtest_reset", args=[world.pk])).status_code == 405


def test_inspector_shows_the_whole_engine_state(client: Client, alice: Any, world: Any) -> None:
    session = reset_playtest(alice, world, mode="offline")
    client.force_login(alice)
    response = client.get(reverse("play:playtest_state", args=[session.pk]), **hx())
    assert response.status_code == 200
    assert is_partial(response)
    html = response.content.decode()
    assert "&quot;health&quot;: 100" in html
    assert "<dt>Turn</dt><dd>0</dd>" in html


def test_inspector_of_a_published_session_is_404(
    client: Client, alice: Any, play_session: Session
) -> None:
    client.force_login(alice)
    assert client.get(reverse("play:playtest_state", args=[play_session.pk])).status_code == 404


def test_inspector_of_another_users_playtest_is_404(
    client: Client, alice: Any, bob: Any, world: Any
) -> None:
    session = reset_playtest(alice, world, mode="offline")
    client.force_login(bob)
    assert client.get(reverse("play:playtest_state", args=[session.pk])).status_code == 404


def test_the_world_editor_holds_the_playtest_slot(client: Client, alice: Any, world: Any) -> None:
    client.force_login(alice)
    html = client.get(reverse("studio:world", args=[world.pk])).content.decode()
    assert f'hx-get="{reverse("play:playtest", args=[world.pk])}"' in html
    assert "js/play.js" in html
