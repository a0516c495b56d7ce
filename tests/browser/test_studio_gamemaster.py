"""The game-master editor in a real browser: turn it on, add two places joined by an exit, see
the edge in the graph, open a place from the graph, and meet the linter's refusal."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import shot
from tests.browser.pages import collect_errors

pytestmark = [pytest.mark.django_db(transaction=True)]

PASSWORD = "salty-caravan-42"


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def violations_of(page: Any) -> list[str]:
    return collect_errors(page, "csp")


def sign_up_and_create(page: Any, username: str, world: str) -> None:
    page.goto("/accounts/signup/", timeout=60_000)
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main button[type=submit]")
    expect(page.locator("h1")).to_have_text("My worlds")
    page.fill("#id_name", world)
    page.click("text=Create world")
    expect(page.locator(".editor-head h1")).to_have_text(world)


def add_location(page: Any, name: str, exit_to: tuple[str, str] | None = None) -> None:
    page.click(".list-panel >> text=+ New")
    expect(page).to_have_url(re.compile(r"/gm/locations/new/$"))  # swapped in: safe to type
    expect(page.locator("#form-title")).to_have_text("New location")
    page.fill("#id_name", name)
    if exit_to is not None:
        page.select_option("#id_exits-0-direction", exit_to[0])
        page.select_option("#id_exits-0-to", exit_to[1])
    page.click("#gm-form button[type=submit]")
    expect(page.locator(".form-panel")).to_contain_text("Created.")
    expect(page.locator("#gm-list")).to_contain_text(name)


def test_two_places_joined_by_an_exit_show_in_the_graph_and_the_linter_guards_them(
    new_page: Any,
) -> None:
    page = new_page()
    violations = violations_of(page)
    sign_up_and_create(page, "gwen", "Brackenford")
    page.click(".editor-nav >> text=Game master")
    page.click("text=Turn on the game master")
    expect(page.locator(".gm-tabs")).to_be_visible()
    page.click(".gm-tabs >> text=Locations")

    add_location(page, "The Hall")
    add_location(page, "The Yard", exit_to=("south", "the-hall"))
    edge = page.locator('#gm-map g.gm-edge[data-from="the-yard"][data-to="the-hall"]')
    expect(edge).to_have_count(1)
    expect(edge.locator("text")).to_have_text("south")
    expect(page.locator("#gm-map a.gm-node")).to_have_count(2)
    shot(page, "gm-locations")

    # A box of the graph opens its place's form.
    page.click('#gm-map a.gm-node[data-location="the-hall"]')
    expect(page.locator("#form-title")).to_have_text("Edit “the-hall”")

    # Deleting the hall would leave the yard's exit leading nowhere: refused, path named.
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".form-panel button:has-text('Delete')")
    refused = page.locator(".gm-refused")
    expect(refused).to_contain_text(
        "gameMaster.locations[0].exits[0].to: unknown location 'the-hall'"
    )
    expect(page.locator("#gm-map a.gm-node")).to_have_count(2)

    # The same exit, typed to a missing place in the raw JSON: refused, graph unchanged.
    page.click(".gm-tabs >> text=JSON")
    box = page.locator("#id_block")
    box.fill(box.input_value().replace('"to": "the-hall"', '"to": "the-moon"'))
    page.click("#gm-json-form button[type=submit]")
    expect(page.locator("#field-block .errorlist")).to_contain_text(
        "gameMaster.locations[1].exits[0].to: unknown location 'the-moon'"
    )
    shot(page, "gm-json-refused")
    assert violations == []
