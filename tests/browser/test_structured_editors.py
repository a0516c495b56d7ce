"""The structured rule editor in real Chromium: a trigger picked from a list shows its own fields,
condition and action rows are added in place, the rule saves and comes back as rows, and the
raw JSON is one radio away, written from what the rows hold."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from studio.models import Rule, Variable, World
from studio.worlds import create_item
from tests.browser.conftest import shot
from tests.factories import make_user, make_world

pytestmark = [pytest.mark.django_db(transaction=True)]


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def console_errors(page: Any) -> list[str]:
    """Errors the page logs; the site has no favicon yet, and Chromium asks for one."""
    errors: list[str] = []

    def record(message: Any) -> None:
        where = (message.location or {}).get("url", "")
        if message.type == "error" and not where.endswith("/favicon.ico"):
            errors.append(f"{message.text} ({where})")

    page.on("console", record)
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    return errors


def htmx_idle(page: Any, quiet_ms: int = 500) -> None:
    """Until no htmx request has been in flight for ``quiet_ms`` (a delayed trigger included)."""
    quiet = 0
    for _ in range(400):
        busy = page.evaluate("!!document.querySelector('.htmx-request')")
        quiet = 0 if busy else quiet + 50
        if quiet >= quiet_ms:
            return
        page.wait_for_timeout(50)
    raise AssertionError("htmx requests still in flight after 20 s")


def log_in(page: Any, username: str) -> None:
    page.goto("/accounts/login/", timeout=60_000)  # may be the live server's first request
    page.fill("#id_username", username)
    page.fill("#id_password", "password")
    page.click("main button[type=submit]")
    expect(page.locator("h1")).to_have_text("My worlds")


@pytest.fixture
def salt_road(live_server: Any) -> World:
    world = make_world(make_user("alice"))  # a number variable "health" and one rule
    create_item(world, Variable, {"id": "mood", "name": "Mood", "type": "string"})
    return world


def test_a_rule_built_from_rows_saves_and_comes_back(
    new_page: Callable[..., Any], salt_road: World
) -> None:
    page = new_page()
    errors = console_errors(page)
    log_in(page, "alice")
    page.goto(f"/studio/w/{salt_road.pk}/rules/new/")
    page.fill("#id_name", "Dusk")

    page.select_option("#id_trigger_type", "keyword")
    expect(page.locator("#id_trigger_keywords")).to_be_visible()
    expect(page.locator("#id_trigger_threshold")).to_be_hidden()
    page.fill("#id_trigger_keywords", "tavern, inn")

    page.select_option("#id_cond-0-variable_id", "health")
    page.select_option("#id_cond-0-operator", "gt")
    page.fill("#id_cond-0-value", "20")
    page.click("text=+ Add condition")
    page.select_option("#id_cond-1-variable_id", "mood")
    page.fill("#id_cond-1-value", "grim")

    page.select_option("#id_act-0-type", "notify-player")
    expect(page.locator("#id_act-0-variable_id")).to_be_hidden()
    page.fill("#id_act-0-message", "Night falls.")
    page.select_option("#id_act-0-style", "warning")
    page.click("#item-form button[type=submit]")
    expect(page.locator(".form-panel")).to_contain_text("Created.")

    rule = Rule.objects.get(world=salt_road, name="Dusk")
    assert rule.trigger == {
        "type": "keyword",
        "keywords": ["tavern", "inn"],
        "matchWholeWords": False,
    }
    assert rule.conditions == [
        {"variableId": "health", "operator": "gt", "value": 20},
        {"variableId": "mood", "operator": "eq", "value": "grim"},
    ]
    assert rule.actions == [
        {"type": "notify-player", "message": "Night falls.", "style": "warning"}
    ]

    htmx_idle(page)  # a preview the save set off, cut by the reload, would log htmx:sendAbort
    page.reload()
    expect(page.locator("#form-title")).to_have_text("Edit “Dusk”")
    expect(page.locator("#id_trigger_type")).to_have_value("keyword")
    expect(page.locator("#id_trigger_keywords")).to_have_value("tavern, inn")
    expect(page.locator("#id_cond-0-variable_id")).to_have_value("health")
    expect(page.locator("#id_cond-1-variable_id")).to_have_value("mood")
    expect(page.locator("#id_cond-1-value")).to_have_value("grim")
    expect(page.locator("#id_act-0-message")).to_have_value("Night falls.")
    expect(page.locator("#id_act-0-message")).to_be_visible()

    # The raw JSON, one radio away, written from what the rows hold, unsaved edits included.
    page.fill("#id_act-0-message", "The sun is gone.")
    page.check("#id_editor_1")
    expect(page.locator("#id_actions")).to_be_visible()
    expect(page.locator("#id_actions")).to_have_value(re.compile('"message": "The sun is gone."'))
    expect(page.locator("#id_trigger_type")).to_be_hidden()
    page.check("#id_editor_0")
    expect(page.locator("#id_act-0-message")).to_have_value("The sun is gone.")
    assert errors == [], "\n".join(errors)

    # Screenshots last: Playwright leaves style="" on elements, which htmx's settle then copies.
    shot(page, "structured-rule-editor")
    page.check("#id_editor_1")
    expect(page.locator("#id_actions")).to_be_visible()
    shot(page, "structured-rule-raw-json")


def test_the_editor_switch_waits_while_the_server_redraws_the_other_side(
    new_page: Callable[..., Any], salt_road: World
) -> None:
    """A second click during the redraw was undone when the first answer replaced the radios
    (and the side shown flipped back): the switch is disabled until the answer is in."""
    page = new_page()
    log_in(page, "alice")
    page.goto(f"/studio/w/{salt_road.pk}/rules/new/")
    in_flight = page.evaluate(
        """() => {
            document.querySelector('#id_editor_1').click();  // htmx posts on change, at once
            const radios = [...document.querySelectorAll('.mode-switch input')];
            return radios.map(radio => radio.matches(':disabled'));  // in a disabled fieldset
        }"""
    )
    assert in_flight == [True, True]
    expect(page.locator("#id_actions")).to_be_visible()  # the JSON side, drawn from the rows
    expect(page.locator("#id_editor_0")).to_be_enabled()
    page.check("#id_editor_0")
    page.check("#id_editor_1")  # waits for the first answer, then asks again
    expect(page.locator("#id_actions")).to_be_visible()
    htmx_idle(page)
    expect(page.locator("#id_editor_1")).to_be_checked()
    expect(page.locator("#id_actions")).to_be_visible()
