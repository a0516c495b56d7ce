"""My worlds: list, create, the overview form, delete, and the editor's page frame."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studio.models import World
from tests.factories import make_world
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


def header_post(**overrides: str) -> dict[str, str]:
    data = {
        "name": "The Salt Road",
        "description": "Caravans.",
        "author": "Alice",
        "language": "en",
        "editor_mode": "advanced",
    }
    data.update(overrides)
    return data


def test_world_list_shows_only_my_worlds(client, alice, bob, world, django_assert_num_queries):
    make_world(bob, id="bobs-world", name="Bob's Keep")
    login(client, alice)
    with django_assert_num_queries(3):
        response = client.get(reverse("studio:world_list"))
    assert b"The Salt Road" in response.content
    assert b"Bob&#x27;s Keep" not in response.content


def test_world_list_queries_stay_flat(client, alice, world, django_assert_num_queries):
    for n in range(4):
        publish(make_world(alice, id=f"w-{n}", name=f"World {n}"))
    login(client, alice)
    with django_assert_num_queries(3):
        response = client.get(reverse("studio:world_list"))
    assert response.content.count(b'class="card"') == 5


def test_world_list_needs_login_and_refuses_post(client, alice):
    assert client.get(reverse("studio:world_list")).status_code == 302
    assert login(client, alice).post(reverse("studio:world_list")).status_code == 405


def test_create_world_redirects_to_its_overview(client, alice):
    response = login(client, alice).post(
        reverse("studio:world_new"), {"name": "Moonfall", "description": "", "language": "zh"}
    )
    world = World.objects.get(name="Moonfall")
    assert response["Location"] == reverse("studio:world", args=[world.pk])
    assert world.owner == alice
    assert world.author == "alice"
    assert world.language == "zh"


def test_create_world_requires_a_name(client, alice):
    response = login(client, alice).post(reverse("studio:world_new"), {"name": ""}, **hx())
    assert errors_of(response) == ["Name is required."]
    assert is_partial(response)
    assert not World.objects.exists()


def test_create_world_needs_login_and_refuses_put(client, alice):
    assert client.post(reverse("studio:world_new"), {"name": "X"}).status_code == 302
    assert not World.objects.exists()
    assert login(client, alice).put(reverse("studio:world_new")).status_code == 405


def test_overview_saves_the_header(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:world", args=[world.pk]), header_post(name="Salt", language="")
    )
    world.refresh_from_db()
    assert response.status_code == 302
    assert (world.name, world.language) == ("Salt", None)


def test_overview_htmx_save_returns_the_partial(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:world", args=[world.pk]), header_post(name="Salt"), **hx()
    )
    assert is_partial(response)
    assert response["HX-Trigger"] == '{"worldChanged": {}}'
    assert b'id="publishing"' in response.content


def test_overview_bad_input_names_the_field(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:world", args=[world.pk]), header_post(editor_mode="expert")
    )
    assert errors_of(response) == [
        "Select a valid choice. expert is not one of the available choices."
    ]


def test_overview_checklist(client, alice, bob, charlie, world):
    url = reverse("studio:world", args=[world.pk])
    assert client.get(url).status_code == 302
    assert login(client, charlie).get(url).status_code == 404
    publish(world)
    assert login(client, bob).get(url).status_code == 403
    assert login(client, alice).delete(url).status_code == 405


def test_editor_page_has_the_playtest_slot_and_vendored_htmx(client, alice, world):
    html = login(client, alice).get(reverse("studio:world", args=[world.pk])).content.decode()
    assert '<section id="playtest">' in html
    assert "/static/vendor/htmx/htmx.min.js" in html
    assert "unpkg" not in html and "//cdn" not in html.lower()
    assert 'hx-headers=\'{"X-CSRFToken": "' in html


def test_delete_world(client, alice, bob, world):
    url = reverse("studio:world_delete", args=[world.pk])
    assert login(client, alice).get(url).status_code == 405
    publish(world)
    assert login(client, bob).post(url).status_code == 403
    response = login(client, alice).post(url)
    assert response["Location"] == reverse("studio:world_list")
    assert not World.objects.filter(pk=world.pk).exists()
