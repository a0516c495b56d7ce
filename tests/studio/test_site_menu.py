"""The site menu (templates/base.html): a signed-in reader reaches My worlds, My stories,
Personas and My model from every page, and the menu marks where they are."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

MENU = ["Gallery", "My worlds", "My stories", "Personas", "My model"]


def menu(html: str) -> list[tuple[str, str, bool]]:
    """(label, href, current) of each link of the main menu."""
    nav = html.split('<nav class="site-nav"', 1)[1].split("</nav>", 1)[0]
    links = re.findall(r'<a href="([^"]+)"( aria-current="page")?>([^<]+)</a>', nav)
    return [(label, href, bool(current)) for href, current, label in links]


def test_signed_in_the_menu_reaches_worlds_stories_personas_and_model(client: Client, alice: Any):
    client.force_login(alice)
    links = menu(client.get(reverse("gallery")).content.decode())
    assert [label for label, _href, _current in links][:5] == MENU
    assert [href for _label, href, _current in links][:5] == [
        reverse("gallery"),
        reverse("studio:world_list"),
        reverse("play:session_list"),
        reverse("play:personas"),
        reverse("play:provider"),
    ]


@pytest.mark.parametrize(
    ("page", "label"),
    [
        ("studio:world_list", "My worlds"),
        ("play:session_list", "My stories"),
        ("play:personas", "Personas"),
        ("play:provider", "My model"),
    ],
)
def test_the_menu_marks_the_current_page(client: Client, alice: Any, page: str, label: str):
    client.force_login(alice)
    links = menu(client.get(reverse(page)).content.decode())
    assert [name for name, _href, current in links if current] == [label]


def test_signed_out_the_menu_has_no_personal_pages(client: Client):
    labels = [label for label, _href, _current in menu(client.get("/").content.decode())]
    assert labels == ["Gallery", "Log in", "Sign up"]


def test_every_page_loads_the_faces_styles_and_the_site_script(client: Client):
    html = client.get("/").content.decode()
    assert '<link rel="stylesheet" href="/static/css/faces.css">' in html
    assert '<script src="/static/js/site.js" defer></script>' in html
