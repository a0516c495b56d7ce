"""A newcomer's first run in real Chromium (issue 35 §8).

A guest on the home page reads what Fabula is and finds both paths: the two demos to play and
a way to create a world. After signing up, the creator's (empty) studio points to the same two
demos and to the ways of making a world. A fork asks for its name and then says where it came
from: "Forked from X by Y".
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import shot
from tests.browser.test_creator_walk import expect, watched
from tests.browser.test_studio import PASSWORD

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(180),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def demos() -> dict[str, Any]:
    from studio.demo import load_demo

    return load_demo()


def test_a_guest_reads_what_fabula_is_and_finds_both_paths(
    new_page: Any, demos: dict[str, Any]
) -> None:
    page = watched(new_page())
    page.goto("/")
    intro = page.locator("[data-intro]")
    expect(intro.locator("h2")).to_contain_text("Fabula")
    expect(intro.locator("[data-demos] [data-play-demo]")).to_have_count(2)
    expect(intro).to_contain_text(demos["version"].name)
    expect(intro).to_contain_text(demos["gm"]["version"].name)
    shot(page, "first-run-home")
    intro.locator("[data-create-world]").click()
    page.wait_for_url(re.compile(r"/accounts/signup/$"))

    page.fill("#id_username", "newcomer")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r"/studio/$"))
    welcome = page.locator("[data-welcome]")
    expect(welcome.locator("[data-play-demo]")).to_have_count(2)
    expect(welcome.locator("a[href='/studio/import/']")).to_have_count(1)
    expect(page.locator("#id_name")).to_be_visible()  # the new-world form, on the same page
    shot(page, "first-run-studio")
    page.goto("/")
    expect(page.locator("[data-intro]")).to_have_count(0)  # a signed-in creator: the gallery
    assert page.errors == []


def test_a_fork_asks_for_a_name_and_says_where_it_came_from(
    new_page: Any, demos: dict[str, Any], alice: Any
) -> None:
    page = watched(new_page())
    page.goto("/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "password")
    page.click("main button[type=submit]")
    page.wait_for_load_state()
    page.goto(f"/worlds/{demos['world'].pk}/")
    page.click(".fork-form summary")
    name = page.locator("[data-fork-form] input[name=name]")
    expect(name).to_be_visible()
    name.fill("Hollow's Edge, my way")
    page.click("[data-fork-form] button[type=submit]")
    page.wait_for_url(re.compile(r"/studio/w/\d+/$"))
    expect(page.locator(".editor-head h1")).to_have_text("Hollow's Edge, my way")
    origin = page.locator("[data-forked-from]")
    expect(origin).to_have_text(f"Forked from {demos['version'].name} by demo.")
    expect(origin.locator("a")).to_have_attribute("href", f"/worlds/{demos['world'].pk}/")
    assert page.errors == []
