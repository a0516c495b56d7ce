"""Custom tags and their colours."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


def test_tags_page_lists_tags_with_colours(client, alice, world, django_assert_num_queries):
    world.custom_tags = ["npc", "place"]
    world.custom_tag_colors = {"npc": "bg-red-500"}
    world.save()
    login(client, alice)
    with django_assert_num_queries(4):
        response = client.get(reverse("studio:tags", args=[world.pk]))
    html = response.content.decode()
    assert 'class="badge tag-color-red">npc<' in html
    assert 'class="badge tag-color-gray">place<' in html


def test_save_adds_then_recolours_a_tag(client, alice, world):
    login(client, alice)
    url = reverse("studio:tag_save", args=[world.pk])
    response = client.post(url, {"tag": " npc ", "color": "green"})
    assert response["Location"] == reverse("studio:tags", args=[world.pk])
    client.post(url, {"tag": "npc", "color": "blue"}, **hx())
    world.refresh_from_db()
    assert world.custom_tags == ["npc"]
    assert world.custom_tag_colors == {"npc": "bg-blue-500"}


def test_save_bad_input_rerenders_with_the_error(client, alice, world):
    response = login(client, alice).post(
        reverse("studio:tag_save", args=[world.pk]), {"tag": "", "color": "plaid"}, **hx()
    )
    assert is_partial(response)
    assert errors_of(response) == [
        "This field is required.",
        "Select a valid choice. plaid is not one of the available choices.",
    ]


def test_delete_forgets_the_tag(client, alice, world):
    world.custom_tags = ["npc"]
    world.custom_tag_colors = {"npc": "bg-red-500"}
    world.save()
    response = login(client, alice).post(
        reverse("studio:tag_delete", args=[world.pk]), {"tag": "npc"}, **hx()
    )
    world.refresh_from_db()
    assert is_partial(response)
    assert (world.custom_tags, world.custom_tag_colors) == ([], {})


def test_tags_checklist(client, alice, bob, charlie, world):
    url = reverse("studio:tags", args=[world.pk])
    save = reverse("studio:tag_save", args=[world.pk])
    assert client.get(url).status_code == 302
    assert login(client, charlie).get(url).status_code == 404
    assert login(client, alice).get(save).status_code == 405
    assert client.post(url).status_code == 405
    publish(world)
    assert login(client, bob).post(save, {"tag": "x", "color": "red"}).status_code == 403


def test_move_reorders_tags(client, alice, world):
    world.custom_tags = ["a", "b", "c"]
    world.save()
    login(client, alice)
    url = reverse("studio:tag_move", args=[world.pk])
    response = client.post(url, {"tag": "c", "direction": "up"})
    assert response["Location"] == reverse("studio:tags", args=[world.pk])
    partial = client.post(url, {"tag": "a", "direction": "down"}, **hx())
    world.refresh_from_db()
    assert world.custom_tags == ["c", "a", "b"]
    assert is_partial(partial)
    bad = client.post(url, {"tag": "zzz", "direction": "up"})
    assert (bad.status_code, bad.content) == (400, b"tag: unknown tag 'zzz'")
    assert client.get(url).status_code == 405
