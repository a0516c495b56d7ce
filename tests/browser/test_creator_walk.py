"""A creator's walk through the studio in each of its three languages (issue 16, "Done when").

In English, Spanish and Chinese a new creator imports a SillyTavern card (its picture becomes the
world's portrait; the import report says what was mapped), opens the checks panel, a structured
rule form, the portraits page, exports the world back as a V3 card, and opens "My model" from the
menu. Every page is in the chosen language, names none of the English menu words, and logs no
error in the console.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import shot
from tests.browser.test_studio import PASSWORD
from tests.support.corpus import fixture_path

pytestmark = [pytest.mark.timeout(240), pytest.mark.django_db(transaction=True)]

MENU = {
    "en": ["Gallery", "My worlds", "My stories", "Personas", "My model"],
    "es": ["Galería", "Mis mundos", "Mis historias", "Personas", "Mi modelo"],
    "zh-hans": ["画廊", "我的世界", "我的故事", "人设", "我的模型"],
}
PORTRAIT_LINE = {  # a line of the import report, in the page's language (issue 35 §4)
    "en": "the card's picture → the world's portrait",
    "es": "la imagen de la tarjeta → el retrato del mundo",
    "zh-hans": "角色卡图片 → 世界的头像",
}
ENGLISH_ONLY = ("My worlds", "My stories", "Log out", "Save", "Delete world")


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def watched(page: Any) -> Any:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    return page


def in_language(page: Any, language: str) -> None:
    """The page is in ``language``: its ``lang``, its menu, and no English left in the menu."""
    assert page.evaluate("document.documentElement.lang").lower() == language
    menu = str(page.text_content(".site-nav"))
    if language != "en":
        for word in ENGLISH_ONLY:
            assert word not in menu, f"{word!r} untranslated in {page.url}"


def sign_up(page: Any, username: str) -> None:
    page.goto("/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r"/studio/$"))


@pytest.mark.parametrize("language", ["en", "es", "zh-hans"])
def test_a_creator_walks_the_studio_in_their_language(new_page: Any, language: str) -> None:
    page = watched(new_page())
    page.set_default_timeout(30_000)  # a busy machine: the walk visits many pages
    page.goto("/")
    if language != "en":
        with page.expect_navigation():
            page.select_option("#language-select", language)
    sign_up(page, f"walker-{language.replace('-', '')}")
    in_language(page, language)
    menu = page.locator(".site-nav a")
    for word in MENU[language]:
        expect(menu.filter(has_text=word)).to_have_count(1)

    page.goto("/studio/import/")
    page.set_input_files("#id_file", str(fixture_path("ferryman_v2.png")))
    page.click("main button[type=submit]")
    report = page.locator("#import-report")
    expect(report).to_contain_text("Orrin the Ferryman")
    expect(report).to_contain_text(PORTRAIT_LINE[language])
    in_language(page, language)
    report.locator("a").first.click()
    world = re.search(r"/studio/w/(\d+)/", page.url)
    assert world is not None
    base = f"/studio/w/{world.group(1)}/"
    expect(page.locator(".editor-face img.face")).to_have_count(1)  # the card's picture

    for path, ready in (
        ("checks/", "main"),
        ("rules/new/", "#item-form select"),
        ("portraits/", "main form"),
        ("", "#publishing"),
    ):
        page.goto(base + path)
        page.wait_for_selector(ready)
        in_language(page, language)

    with page.expect_download() as download:
        page.click(f"a[href='{base}export/card/?format=png&spec=v3']")
    assert download.value.path().read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    page.locator(".site-nav a", has_text=MENU[language][4]).click()
    page.wait_for_url(re.compile(r"/play/provider/$"))
    in_language(page, language)
    shot(page, f"walk-my-model-{language}")
    assert page.errors == []
