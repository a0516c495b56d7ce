"""A page number past any gallery (issue 32 §9): the page and the API answer the last page, the
same way, instead of a 500 ("bigint out of range" on PostgreSQL; too large for SQLite)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studio.publishing import MAX_GALLERY_PAGE, gallery_page, gallery_worlds
from tests.factories import make_world
from tests.studio.test_views_gallery import names, publish

pytestmark = pytest.mark.django_db

HUGE = ["99999999999999999999", "9223372036854775808", str(MAX_GALLERY_PAGE + 1), "1" + "0" * 300]


@pytest.fixture
def shelf(alice):
    """26 worlds: three pages of 12 on the gallery, two of 24 through the API."""
    for n in range(26):
        publish(make_world(alice, id=f"w-{n}", name=f"World {n:02}"))


@pytest.mark.parametrize("page", HUGE)
def test_a_huge_page_number_reads_as_the_last_page(shelf, page):
    current = gallery_page(gallery_worlds("", "", ""), 12, page)
    assert (current.number, len(current.object_list)) == (3, 2)


@pytest.mark.parametrize("page", HUGE)
def test_the_gallery_page_and_its_api_answer_a_huge_page_alike(client, shelf, page):
    html = client.get(reverse("gallery"), {"page": page})
    assert html.status_code == 200 and len(names(html)) == 2
    assert "Page 3 of 3" in html.content.decode()
    api = client.get("/api/gallery", {"page": page})
    assert api.status_code == 200
    body = api.json()
    assert (body["page"], body["pages"], len(body["results"])) == (2, 2, 2)
