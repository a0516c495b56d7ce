"""The studio in a real browser: sign up, build a world, preview, test, publish, fork, import."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import PHONE, shot
from tests.support.corpus import corpus_dir, fixture_path, requires_corpus

pytestmark = [pytest.mark.django_db(transaction=True)]

PASSWORD = "salty-caravan-42"


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def open_new_form(page: Any, section: str) -> None:
    """Go to a list page and open its empty form (an htmx swap; wait for the pushed URL)."""
    page.click(f".editor-nav >> text={section}")
    page.click("text=+ New")
    expect(page).to_have_url(re.compile(r"/new/$"))


def sign_up(page: Any, username: str) -> None:
    page.goto("/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main button[type=submit]")
    expect(page.locator("h1")).to_have_text("My worlds")


def create_world(page: Any, name: str) -> None:
    page.fill("#id_name", name)
    page.fill("#id_description", "Caravans cross a drowned desert of salt.")
    page.click("text=Create world")
    expect(page.locator(".editor-head h1")).to_have_text(name)


def add_entry(page: Any) -> None:
    open_new_form(page, "Entries")
    expect(page.locator("#form-title")).to_have_text("New entry")
    page.fill("#id_name", "The Tavern")
    page.select_option("#id_section", "chat-history")
    page.select_option("#id_role", "lore")
    page.fill("#id_content", "A smoky tavern where caravan masters trade rumours.")
    page.fill("#id_keywords", "tavern, inn")
    page.click("#item-form button[type=submit]")
    expect(page.locator(".form-panel")).to_contain_text("Created.")
    expect(page.locator("#item-list")).to_contain_text("The Tavern")


def preview_fires_the_entry(page: Any) -> None:
    chat = page.locator("#id_preview-chat")
    chat.fill("")
    chat.press_sequentially("user: I push open the door of the tavern.", delay=5)
    fired = page.locator("#fired-list")
    expect(fired).to_contain_text("The Tavern")
    expect(fired).to_contain_text('keyword "tavern" in message -1 (user)')
    expect(page.locator('.block.fired[data-entry="the-tavern"]')).to_contain_text("smoky tavern")
    expect(page.locator("#cache-breakpoint")).to_contain_text("cacheable tokens above")


def add_variable_and_test_a_directive(page: Any) -> None:
    open_new_form(page, "Variables")
    page.fill("#id_name", "Gold")
    page.fill("#id_id", "gold")
    page.fill("#id_default_value", "10")
    page.fill("#id_min", "0")
    page.click("#item-form button[type=submit]")
    expect(page.locator("#item-list")).to_contain_text("Gold")
    page.click(".editor-nav >> text=Directive tester")
    page.fill("#id_tester-reply", 'You pay the innkeeper. [gold: -3] [gold: append "x"]')
    page.click("text=Test reply")
    expect(page.locator("#clean-text")).to_have_text("You pay the innkeeper.")
    expect(page.locator("#state-diff")).to_contain_text("gold")
    expect(page.locator("#state-diff tbody td").nth(2)).to_have_text("7")
    expect(page.locator("#skipped")).to_contain_text(
        "append does not apply to number variable 'gold'"
    )


def add_a_preset(page: Any) -> None:
    page.click(".editor-nav >> text=Settings")
    page.click("button[aria-label='Add preset Fiction Mode']")
    expect(page.locator("#presets")).to_contain_text("added")
    page.fill("#id_temperature", "3")
    page.click("text=Save settings")
    expect(page.locator("#field-temperature .errorlist")).to_have_text(
        "input should be less than or equal to 2"
    )


def publish(page: Any) -> None:
    page.click(".editor-nav >> text=Overview")
    page.fill("#id_changelog", "First caravan")
    page.click("#publishing button:has-text('Publish')")
    expect(page.locator("#publishing")).to_contain_text("Listed in the gallery as version 1.")


def test_a_creator_builds_previews_tests_and_publishes_and_another_forks(
    new_page: Any,
) -> None:
    page = new_page()
    sign_up(page, "alice")
    create_world(page, "The Salt Road")
    add_entry(page)
    shot(page, "editor")
    shot(page, "editor-viewport", full_page=False)
    preview_fires_the_entry(page)
    shot(page, "preview")
    add_variable_and_test_a_directive(page)
    shot(page, "tester")
    add_a_preset(page)
    shot(page, "settings")
    publish(page)
    shot(page, "overview")

    reader = new_page()
    sign_up(reader, "bob")
    reader.goto("/")
    reader.fill("#q", "salt")
    expect(reader.locator("#results .card")).to_have_count(1)
    shot(reader, "gallery")
    reader.click("#results >> text=The Salt Road")
    expect(reader.locator("article h1")).to_have_text("The Salt Road")
    expect(reader.locator("#play")).to_have_attribute("href", re.compile(r"/play/start/\d+/"))
    reader.click(".fork-form summary")  # the fork asks for its name (issue 35)
    reader.click("[data-fork-form] button[type=submit]")
    expect(reader.locator(".messages")).to_contain_text("Forked into your drafts")
    reader.click(".editor-nav >> text=Entries")
    expect(reader.locator("#item-list")).to_contain_text("The Tavern")


def test_reorder_entries_with_the_keyboard_buttons(new_page: Any) -> None:
    page = new_page()
    sign_up(page, "carol")
    create_world(page, "Order")
    for name in ("First", "Second"):
        open_new_form(page, "Entries")
        page.fill("#id_name", name)
        page.fill("#id_content", f"{name} of the road.")
        page.click("#item-form button[type=submit]")
        expect(page.locator("#item-list")).to_contain_text(name)
    names = page.locator("#item-list .name > a")
    expect(names).to_have_text(["First", "Second"])
    page.click("button[aria-label='Move Second up']")
    expect(names).to_have_text(["Second", "First"])
    page.reload()
    expect(names).to_have_text(["Second", "First"])
    # Drag and drop: the list posts its new order by itself.
    items = page.locator("#item-list li[data-id]")
    with page.expect_response(lambda response: "reorder" in response.url):
        items.nth(1).locator(".grip").drag_to(items.nth(0), target_position={"x": 20, "y": 4})
    expect(names).to_have_text(["First", "Second"])
    page.reload()
    expect(names).to_have_text(["First", "Second"])


def test_importing_our_v3_card_shows_its_lorebook(new_page: Any) -> None:
    page = new_page()
    sign_up(page, "erin")
    page.click("text=Import a file")
    page.set_input_files("#id_file", str(fixture_path("ferryman_v3.png")))
    page.click("main button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("Imported “Orrin the Ferryman”.")
    expect(page.locator("#import-report")).to_contain_text("Orrin the Ferryman")
    page.click("#import-report >> text=Open the world")
    for key in ("the-ferry", "the-toll", "the-lantern"):
        expect(page.locator("#item-list")).to_contain_text(key)


@requires_corpus
def test_importing_seraphinas_card_shows_her_lorebook(new_page: Any) -> None:
    page = new_page()
    sign_up(page, "dana")
    page.click("text=Import a file")
    page.set_input_files("#id_file", str(corpus_dir() / "default_Seraphina.png"))
    page.click("main button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("Imported “Seraphina”.")
    expect(page.locator("#import-report")).to_contain_text("Seraphina")
    page.click("#import-report >> text=Open the world")
    page.wait_for_load_state()  # htmx binds the filter box once the page's scripts have run
    items = page.locator("#item-list")
    for key in ("eldoria", "shadowfang", "glade", "power"):
        expect(items).to_contain_text(key)
    page.fill("#filter_q", "beast")
    expect(page.locator("#item-list li[data-id]")).to_have_count(1)
    expect(page.locator("#item-list")).to_contain_text("shadowfang")
    shot(page, "import-seraphina")


def test_a_bad_import_says_why(new_page: Any, tmp_path: Any) -> None:
    page = new_page()
    sign_up(page, "erin")
    bad = tmp_path / "card.png"
    bad.write_bytes(b"not a png")
    page.goto("/studio/import/")
    page.set_input_files("#id_file", str(bad))
    page.click("main button[type=submit]")
    expect(page.locator(".errorlist")).to_contain_text("not a PNG file")


def test_the_editor_on_a_phone(new_page: Any) -> None:
    page = new_page(PHONE)
    sign_up(page, "frank")
    create_world(page, "Pocket World")
    add_entry(page)
    shot(page, "editor-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]


def test_language_switcher_translates_the_studio(new_page: Any) -> None:
    page = new_page()
    page.goto("/")
    page.select_option("#language-select", "es")
    expect(page.locator("h1")).to_have_text("Mundos para jugar")
    page.select_option("#language-select", "zh-hans")
    expect(page.locator("h1")).to_have_text("可游玩的世界")
