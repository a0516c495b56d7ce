"""The gallery answers with a fixed number of queries however many worlds it lists (issue 14 §4),
and its search covers tags too; the PostgreSQL side is in tests/integration/test_gallery_postgres.

Worlds are shelved with two bulk inserts (a gallery row needs no draft content), so that 30 cost
no more than 3 to set up.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from studio.gallery_postgres import gallery_tsquery
from studio.models import World, WorldVersion

pytestmark = pytest.mark.django_db

HTML_CASES = [
    {},
    {"q": "salt"},
    {"q": "alice"},
    {"tag": "desert"},
    {"language": "es"},
    {"q": "salt", "tag": "desert", "language": "es"},
    {"page": "2"},
]
API_CASES = [{}, {"q": "salt"}, {"tag": "desert", "language": "es"}, {"page": "2"}]


def shelve(owner: Any, count: int, tags: str = "|desert|") -> None:
    """``count`` published worlds named "Salt n", tagged desert, in Spanish."""
    worlds = World.objects.bulk_create(
        World(owner=owner, name=f"Salt {n}", published=True) for n in range(count)
    )
    versions = WorldVersion.objects.bulk_create(
        WorldVersion(
            world=world,
            number=1,
            definition={},
            content_hash="0" * 64,
            name=world.name,
            description="Caravans cross a drowned sea.",
            language="es-MX" if n % 2 else "es",
            tags=tags,
        )
        for n, world in enumerate(worlds)
    )
    for world, version in zip(worlds, versions, strict=True):
        world.published_version = version
    World.objects.bulk_update(worlds, ["published_version"])


def override(per_page: int) -> Any:
    """Both gallery page sizes set to ``per_page``, to see many pages with few worlds."""
    from contextlib import ExitStack
    from unittest import mock

    stack = ExitStack()
    stack.enter_context(mock.patch("studio.api.GALLERY_PAGE_SIZE", per_page))
    stack.enter_context(mock.patch("studio.views.gallery.PAGE_SIZE", per_page))
    return stack


def queries_of(client: Any, path: str, params: dict[str, str]) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path, params).status_code == 200
    return len(captured.captured_queries)


def names(response: Any) -> list[str]:
    return re.findall(r'<h3><a href="/worlds/\d+/">([^<]+)</a></h3>', response.content.decode())


@pytest.mark.parametrize("params", HTML_CASES)
def test_the_html_gallery_costs_a_fixed_number_of_queries_with_3_or_30_worlds(
    client, alice, params, django_assert_num_queries
):
    shelve(alice, 3)
    few = queries_of(client, reverse("gallery"), params)
    shelve(alice, 27)
    # The count (bounded) and the page, owners and versions joined; a search first looks up
    # the worlds of an author of that name; a guest's intro lists the demos (issue 35).
    expected = (3 if params.get("q") else 2) + 1
    with django_assert_num_queries(expected):
        response = client.get(reverse("gallery"), params)
    assert few == expected
    assert len(names(response)) == 12


@pytest.mark.parametrize("params", API_CASES)
def test_the_api_gallery_costs_a_fixed_number_of_queries_with_3_or_30_worlds(
    client, alice, params, django_assert_num_queries
):
    shelve(alice, 3)
    few = queries_of(client, "/api/gallery", params)
    shelve(alice, 27)
    expected = 3 if params.get("q") else 2
    with django_assert_num_queries(expected):
        body = client.get("/api/gallery", params).json()
    assert few == expected
    assert (body["count"], body["count_exact"]) == (30, True)
    assert len(body["results"]) == (24 if params.get("page") != "2" else 6)


def test_the_search_finds_a_word_of_the_tags(client, alice, bob):
    shelve(alice, 1)
    shelve(bob, 2, tags="|court|")
    assert names(client.get(reverse("gallery"), {"q": "desert"})) == ["Salt 0"]
    assert client.get("/api/gallery", {"q": "court"}).json()["count"] == 2


def test_a_large_gallery_counts_only_four_pages_ahead(client, alice):
    shelve(alice, 30)
    with override(2):
        first = client.get("/api/gallery").json()
        html = client.get(reverse("gallery")).content.decode()
        later = client.get("/api/gallery", {"page": 12}).json()
        end = client.get("/api/gallery", {"page": 99}).json()
    assert (first["count"], first["pages"], first["count_exact"]) == (10, 5, False)
    assert "Page 1 of 5+" in html
    assert (later["page"], later["count"], later["count_exact"]) == (12, 30, True)
    assert (end["page"], end["pages"], len(end["results"])) == (15, 15, 2)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Salt road", "('salt') & ('road')"),
        ("dragón", "('dragón')"),
        ("龙的传说 sea", "('龙' & '的' & '传' & '说') & ('sea')"),
        ("it's", "('it') & ('s')"),
        ("  -- ", ""),
    ],
)
def test_a_query_becomes_a_tsquery_of_whole_words_and_single_han_characters(query, expected):
    assert gallery_tsquery(query) == expected


def test_a_gallery_counted_in_full_reads_its_page_by_the_counted_versions(client, alice):
    """A word the planner has no statistics for must not send it walking every world."""
    shelve(alice, 3)
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/api/gallery", {"q": "salt"}).json()["count"] == 3
    listed = re.search(
        r'"studio_world"."published_version_id" IN \(([\d, ]+)\)', captured[-1]["sql"]
    )
    assert listed, captured[-1]["sql"]
    assert {int(pk) for pk in listed[1].split(",")} == set(
        WorldVersion.objects.values_list("pk", flat=True)
    )
