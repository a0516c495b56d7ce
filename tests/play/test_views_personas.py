"""Personas: list, create, edit, delete, activate."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from play.models import Persona
from play.personas import create_persona
from tests.studio.view_helpers import errors_of, hx, is_partial

pytestmark = pytest.mark.django_db


def test_list_shows_my_personas_only(client: Client, alice: Any, bob: Any) -> None:
    create_persona(alice, {"name": "Mira"})
    create_persona(bob, {"name": "Bobbin"})
    client.force_login(alice)
    html = client.get(reverse("play:personas")).content.decode()
    assert "Mira" in html
    assert "Bobbin" not in html


def test_list_needs_login(client: Client) -> None:
    response = client.get(reverse("play:personas"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_list_refuses_post(client: Client, alice: Any) -> None:
    client.force_login(alice)
    assert client.post(reverse("play:personas")).status_code == 405


def test_create_saves_and_the_first_persona_is_active(client: Client, alice: Any) -> None:
    client.force_login(alice)
    response = client.post(
        reverse("play:persona_create"), {"name": "  Mira  ", "backstory": "A cartographer."}
    )
    assert response["Location"] == reverse("play:personas")
    persona = Persona.objects.get(user=alice)
    assert (persona.name, persona.backstory, persona.is_active) == (
        "Mira",
        "A cartographer.",
        True,
    )


def test_create_can_make_the_new_persona_active(client: Client, alice: Any) -> None:
    first = create_persona(alice, {"name": "Mira"})
    client.force_login(alice)
    client.post(reverse("play:persona_create"), {"name": "Tomas", "activate": "1"})
    first.refresh_from_db()
    assert not first.is_active
    assert Persona.objects.get(name="Tomas").is_active


def test_create_without_a_name_shows_the_error(client: Client, alice: Any) -> None:
    client.force_login(alice)
    response = client.post(reverse("play:persona_create"), {"name": "   "}, **hx())
    assert response.status_code == 400
    assert is_partial(response)
    assert errors_of(response) == ["This field is required."]
    assert not Persona.objects.exists()


def test_create_by_htmx_answers_the_section(client: Client, alice: Any) -> None:
    client.force_login(alice)
    response = client.post(reverse("play:persona_create"), {"name": "Mira"}, **hx())
    assert response.status_code == 200
    assert is_partial(response)
    assert 'id="persona-section"' in response.content.decode()
    assert "Mira" in response.content.decode()


def test_edit_changes_the_persona(client: Client, alice: Any) -> None:
    persona = create_persona(alice, {"name": "Mira"})
    client.force_login(alice)
    assert client.get(reverse("play:persona_edit", args=[persona.pk])).status_code == 200
    response = client.post(
        reverse("play:persona_edit", args=[persona.pk]),
        {"name": "Mira Vell", "appearance": "Tall."},
    )
    assert response["Location"] == reverse("play:personas")
    persona.refresh_from_db()
    assert (persona.name, persona.appearance) == ("Mira Vell", "Tall.")


def test_edit_with_bad_input_re_renders_with_the_error(client: Client, alice: Any) -> None:
    persona = create_persona(alice, {"name": "Mira"})
    client.force_login(alice)
    response = client.post(reverse("play:persona_edit", args=[persona.pk]), {"name": ""})
    assert response.status_code == 400
    assert errors_of(response) == ["This field is required."]


def test_edit_of_another_users_persona_is_404(client: Client, alice: Any, bob: Any) -> None:
    persona = create_persona(bob, {"name": "Bobbin"})
    client.force_login(alice)
    assert client.get(reverse("play:persona_edit", args=[persona.pk])).status_code == 404
    assert client.post(reverse("play:persona_delete", args=[persona.pk])).status_code == 404
    assert client.post(reverse("play:persona_activate", args=[persona.pk])).status_code == 404
    assert Persona.objects.filter(pk=persona.pk).exists()


def test_activate_switches_the_active_persona(client: Client, alice: Any) -> None:
    first = create_persona(alice, {"name": "Mira"})
    second = create_persona(alice, {"name": "Tomas"})
    client.force_login(alice)
    response = client.post(reverse("play:persona_activate", args=[second.pk]), **hx())
    assert is_partial(response)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.is_active, second.is_active) == (False, True)


def test_delete_removes_the_persona(client: Client, alice: Any) -> None:
    persona = create_persona(alice, {"name": "Mira"})
    client.force_login(alice)
    response = client.post(reverse("play:persona_delete", args=[persona.pk]))
    assert response["Location"] == reverse("play:personas")
    assert not Persona.objects.exists()


def test_delete_refuses_get(client: Client, alice: Any) -> None:
    persona = create_persona(alice, {"name": "Mira"})
    client.force_login(alice)
    assert client.get(reverse("play:persona_delete", args=[persona.pk])).status_code == 405
