"""Faces and menus in real Chromium against daphne (issue 16 §4).

A creator uploads her world's portrait in the studio and an avatar for her persona, finds the
portrait on the gallery card, plays: the narrator's bubbles carry the portrait and hers the
avatar, on the first paint and on the bubbles the client builds. Then the menu takes her to My
stories, which dates the story in her browser's time zone, and Resume brings the story back.

The server is ``runserver`` (daphne) in a subprocess on a free loopback port with its own SQLite
file and media folder, set up as ``make run`` does it (``migrate``, ``load_demo``);
tests/browser/seed_faces.py adds Alice and her published world. No model: the offline narrator.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.browser.conftest import DESKTOP, PHONE, shot
from tests.browser.pages import signed_in_page
from tests.browser.servers import AppServers

ZONE = "Asia/Tokyo"  # +09:00 all year: no daylight saving to reckon with

pytestmark = [pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def server(app_servers: AppServers, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo worlds and Alice's world, served with daphne; pictures to upload beside them."""
    tmp = tmp_path_factory.mktemp("faces")
    portrait = tmp / "portrait.jpg"
    Image.new("RGB", (600, 400), (40, 90, 200)).save(portrait, "JPEG")
    avatar = tmp / "avatar.png"
    Image.new("RGB", (120, 120), (200, 60, 40)).save(avatar, "PNG")
    info = app_servers.get("tests/browser/seed_faces.py", demo=True)
    return {**info, "portrait": str(portrait), "avatar": str(avatar)}


def open_page(browser: Any, server: dict[str, Any], viewport: dict[str, int]) -> Any:
    """Alice's browser in ``ZONE`` on the gallery; page errors and CSP violations collected."""
    page = signed_in_page(
        browser, server, console="csp", timeout_ms=15_000, viewport=viewport, timezone_id=ZONE
    )
    page.goto(server["base"] + "/")
    return page


def menu(page: Any, label: str) -> None:
    page.click(f".site-nav >> text={label}")
    page.wait_for_load_state()


def loaded(page: Any, selector: str) -> str:
    """The src of the image at ``selector`` once it has really loaded (never a broken image)."""
    image = page.wait_for_selector(selector)
    page.wait_for_function("(image) => image.complete && image.naturalWidth > 0", arg=image)
    return str(image.get_attribute("src"))


def test_portraits_from_the_studio_to_the_bubbles_and_back_through_my_stories(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_page(browser, server, DESKTOP)
    assert page.locator("article.card", has_text="The Salt Road").locator(".face--initials").count()

    # the studio: My worlds → the world → Portraits → upload, cropped from the centre
    menu(page, "My worlds")
    page.click("#my-worlds >> text=The Salt Road")
    page.click(".editor-nav >> text=Portraits")
    world_item = page.locator('[data-portrait="world"]')
    world_item.locator('input[type="file"]').set_input_files(server["portrait"])
    world_item.locator('button[type="submit"]', has_text="Upload").click()
    thumb = loaded(page, '[data-portrait="world"] img.face')
    assert thumb.startswith("/media/portraits/") and thumb.endswith("/256.webp")
    page.reload()
    assert loaded(page, ".editor-head img.face") == thumb
    shot(page, "faces-studio-portraits")

    # a persona with an avatar, through the menu
    menu(page, "Personas")
    page.fill("#id_name", "Mira Vell")
    page.click(".persona-new button[type=submit]")
    page.click(".persona-card >> text=Edit")
    page.set_input_files("#id_avatar_image", server["avatar"])
    page.click("#avatar button[type=submit]")
    assert loaded(page, "#avatar img.face").endswith("/256.webp")
    shot(page, "faces-persona")

    # the gallery card, then a story: portraits on the first paint and on new bubbles
    menu(page, "Gallery")
    card = page.locator("article.card", has_text="The Salt Road")
    assert loaded(page, "article.card:has-text('The Salt Road') img.face") == thumb
    shot(page, "faces-gallery")
    card.locator("a", has_text="Play").click()
    page.click(".start-form button[type=submit]")
    page.wait_for_selector(".conn[data-state=online]")
    icon = thumb.replace("/256.webp", "/64.webp")
    assert loaded(page, ".play-bar img.face") == thumb
    assert loaded(page, ".msg--assistant .msg-who img.face") == icon
    page.fill("[data-input]", "I count the camels.")
    page.click("[data-send]")
    page.wait_for_selector(".msg--assistant >> nth=1")
    page.wait_for_function(
        "document.querySelector('[data-play-root]').__fabulaPlay.streamingId === null"
    )
    avatar = loaded(page, ".msg--user .msg-who img.face")
    assert avatar.startswith("/media/portraits/") and avatar.endswith("/64.webp")
    assert page.locator(".msg--user .msg-who").last.text_content().strip() == "Mira Vell"
    assert loaded(page, ".msg--assistant:last-child .msg-who img.face") == icon
    shot(page, "faces-play")
    story_url = page.url

    # My stories: the story, dated in the browser's zone, and Resume brings it back
    menu(page, "My stories")
    row = page.locator(".session-card", has_text="The Salt Road")
    assert row.locator("img.face").get_attribute("src") == thumb
    stamp = row.locator("time")
    assert str(stamp.get_attribute("datetime")).endswith("+09:00")
    assert f"({ZONE})" in str(stamp.get_attribute("title"))
    assert page.locator('.site-nav a[aria-current="page"]').text_content() == "My stories"
    shot(page, "faces-my-stories")
    row.locator("[data-resume]").click()
    page.wait_for_selector(".conn[data-state=online]")
    assert page.url == story_url
    page.wait_for_selector(".msg--user:has-text('I count the camels.')")
    assert loaded(page, ".msg--user .msg-who img.face") == avatar

    menu(page, "My model")
    assert page.locator('.site-nav a[aria-current="page"]').text_content() == "My model"
    assert page.errors == []


def test_the_menu_fits_a_phone_and_a_lost_portrait_shows_initials(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_page(browser, server, PHONE)
    for label in ("My worlds", "My stories", "Personas", "My model"):
        box = page.locator(".site-nav a", has_text=label).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    shot(page, "faces-menu-phone")
    harbour = "article.card:has-text('Quiet Harbour')"
    src = loaded(page, f"{harbour} img.face")
    (Path(server["media"]) / src.removeprefix("/media/")).unlink()  # the file went missing
    page = open_page(browser, server, PHONE)  # a fresh browser: nothing cached
    card = page.locator(harbour)
    card.locator(".face--initials").wait_for()
    assert card.locator("img.face").count() == 0
    assert card.locator(".face--initials").text_content() == "QH"
    assert page.errors == []
