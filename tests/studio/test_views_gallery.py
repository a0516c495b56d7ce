"""The gallery at / (search by name, tag and language; paginated) and each world's page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.factories import make_world
from tests.studio.view_helpers import hx, is_partial, login, publish

pytestmark = pytest.mark.django_db


def names(response) -> list[str]:
    return re.findall(r'<h3><a href="/worlds/\d+/">([^<]+)</a></h3>', response.content.decode())


@pytest.fixture
def shelf(alice, bob):
    publish(make_world(alice, id="w-salt", name="Salt Road", language="en", customTags=["desert"]))
    publish(make_world(bob, id="w-moon", name="Moon Court", language="zh", customTags=["court"]))
    make_world(bob, id="w-draft", name="Secret Draft")


def test_gallery_lists_published_worlds_only(client, shelf, django_assert_num_queries):
    with django_assert_num_queries(3):  # + the guest intro's demos
        response = client.get(reverse("gallery"))
    assert sorted(names(response)) == ["Moon Court", "Salt Road"]
    assert b"by alice" in response.content


@pytest.mark.parametrize(
    ("query", "expected"),
    [("q=moon", ["Moon Court"]), ("tag=desert", ["Salt Road"]), ("language=zh", ["Moon Court"])],
)
def test_gallery_search(client, shelf, query, expected):
    response = client.get(reverse("gallery") + "?" + query, **hx())
    assert is_partial(response)
    assert names(response) == expected


def test_gallery_is_paginated(client, alice, django_assert_num_queries):
    for n in range(14):
        publish(make_world(alice, id=f"w-{n}", name=f"World {n:02}"))
    with django_assert_num_queries(3):  # + the guest intro's demos
        first = client.get(reverse("gallery"))
    second = client.get(reverse("gallery") + "?page=2")
    assert len(names(first)) == 12
    assert len(names(second)) == 2
    assert "Page 1 of 2" in first.content.decode()


def test_gallery_refuses_post(client):
    assert client.post(reverse("gallery")).status_code == 405


def test_world_page_shows_versions_author_and_play(client, alice, world):
    v1 = publish(world, "First")
    v2 = publish(world, "Second")
    html = client.get(reverse("world_page", args=[world.pk])).content.decode()
    assert "Caravans cross a drowned desert." in html
    assert "by alice" in html
    assert f'href="{reverse("play:start", args=[v2.pk])}" id="play"' in html
    assert "First" in html and "Second" in html
    assert f"/versions/{v1.pk}/export/" in html
    assert "Fork" not in html


def test_world_page_offers_fork_when_signed_in(client, bob, world):
    version = publish(world)
    html = login(client, bob).get(reverse("world_page", args=[world.pk])).content.decode()
    assert f'action="{reverse("fork", args=[version.pk])}"' in html


def test_a_draft_page_is_404_for_others_and_visible_to_its_owner(client, alice, charlie, world):
    url = reverse("world_page", args=[world.pk])
    assert client.get(url).status_code == 404
    assert login(client, charlie).get(url).status_code == 404
    assert b"Not published yet." in login(client, alice).get(url).content
    assert client.post(url).status_code == 405
