"""The creator's first hour in real Chromium (issue 35 §1, §2): no lorebook trap, no junk.

A new entry with keywords lands in chat history (the section box says why), the checks panel
warns about keywords a section ignores, and an empty Create names what is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from studio.models import Entry, Rule, World
from studio.worlds import create_item
from tests.browser.test_structured_editors import expect, log_in
from tests.factories import make_user, make_world

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def lint_lab(live_server: Any) -> World:
    world = make_world(make_user("alice"), name="Lint Lab")
    gold = {
        "id": "gold-lore",
        "name": "Gold lore",
        "section": "system-presets",
        "keywords": ["gold", "coins"],
        "content": "Gold is heavy.",
    }
    create_item(world, Entry, gold)
    return world


def test_a_keyword_entry_goes_to_chat_history_and_the_trap_is_flagged(
    new_page: Callable[..., Any], lint_lab: World
) -> None:
    page = new_page()
    log_in(page, "alice")
    page.goto(f"/studio/w/{lint_lab.pk}/entries/new/")
    section = page.locator("#id_section")
    expect(section).to_have_value("")
    expect(page.locator("#item-form")).to_contain_text("Keywords only work in chat history")
    page.fill("#id_name", "Ferryman")
    page.fill("#id_content", "Cob rows the dead across the river.")
    page.fill("#id_keywords", "ferryman, Cob")
    page.click("#item-form button[type=submit]")
    expect(page.locator(".form-panel")).to_contain_text("Created.")
    assert Entry.objects.get(world=lint_lab, name="Ferryman").section == "chat-history"

    page.goto(f"/studio/w/{lint_lab.pk}/checks/")
    finding = page.locator("#lint-panel li[data-code=keywords-ignored]")
    expect(finding).to_have_count(1)
    expect(finding).to_contain_text("Entry “Gold lore” (gold-lore)")
    expect(finding).to_contain_text("are ignored in the system-presets section")
    finding.locator("a").click()
    expect(page.locator("#id_section")).to_have_value("system-presets")
    expect(page.locator("#id_name")).to_have_value("Gold lore")


def test_an_empty_create_names_what_is_missing(
    new_page: Callable[..., Any], lint_lab: World
) -> None:
    page = new_page()
    log_in(page, "alice")
    entries = Entry.objects.filter(world=lint_lab).count()
    page.goto(f"/studio/w/{lint_lab.pk}/entries/new/")
    page.click("#item-form button[type=submit]")
    expect(page.locator("#item-form")).to_contain_text("Name is required.")
    expect(page.locator("#item-form")).to_contain_text("Content is required.")
    assert Entry.objects.filter(world=lint_lab).count() == entries

    rules = Rule.objects.filter(world=lint_lab).count()
    page.goto(f"/studio/w/{lint_lab.pk}/rules/new/")
    page.fill("#id_name", "Pay the ferryman")
    page.click("#item-form button[type=submit]")
    expect(page.locator("#item-form")).to_contain_text("Actions: add at least one action")
    assert Rule.objects.filter(world=lint_lab).count() == rules
