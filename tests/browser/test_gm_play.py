"""Brackenford, the game-master demo, in real Chromium against daphne (issue 10 §4, §7).

The server is ``runserver`` (daphne) in a subprocess on a free loopback port with a SQLite file
(shared with the demo's other readers, tests/browser/servers.py), set up as ``make run`` does
it: ``migrate`` then ``load_demo``; tests/browser/seed_gm.py adds a player. No model is
configured: the engine moves and the dice need none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, PHONE, shot
from tests.browser.pages import held, signed_in_page, wait_settled
from tests.browser.servers import AppServers

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    """The demo worlds and a player, served with daphne; the site other readers of the demo share
    (``share="demo"``: each adds its own users, none publishes)."""
    return app_servers.get("tests/browser/seed_gm.py", demo=True, share="demo")


def open_gallery(browser: Any, server: dict[str, Any], viewport: dict[str, int]) -> Any:
    """A logged-in page on the gallery; page errors and CSP violations are collected."""
    page = signed_in_page(
        browser, server, console="csp", viewport=viewport, timezone_id="Europe/Madrid"
    )
    page.goto(server["base"] + "/")
    return page


def last_reply(page: Any) -> str:
    return str(page.locator(".msg--assistant .msg-body").last.text_content()).strip()


def start_brackenford(page: Any, character: str) -> None:
    card = page.locator("article.card", has_text="Brackenford")
    card.locator("a", has_text="Play").click()
    page.select_option("select[name=character]", character)
    page.click(".start-form button[type=submit]")
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_brackenford_moves_by_a_click_and_rolls_a_risky_climb(
    browser: Any, server: dict[str, Any], viewport: dict[str, int]
) -> None:
    page = open_gallery(browser, server, viewport)
    assert page.locator("article.card").count() == 2  # beside the Lantern
    start_brackenford(page, "ren")
    page.wait_for_selector('[data-gm-place]:has-text("The Wayfarer\'s Rest")')
    assert page.is_hidden("[data-gm-check]")

    count = held(page)
    page.click('[data-gm-click="location:square"]')
    wait_settled(page, count + 1)  # a click sends no player message
    page.wait_for_selector("[data-gm-place]:has-text('Market Square')")
    assert "Market Square" in last_reply(page)
    assert page.locator(".msg--assistant").last.locator(".msg-engine").is_visible()

    page.fill("[data-input]", "climb the well")
    page.click("[data-send]")
    wait_settled(page, count + 3)
    check = page.wait_for_selector("[data-gm-check]:visible")
    assert check.text_content().strip().startswith("Roll for Athletics · DC 15")
    assert page.locator(".choice", has_text="Roll").count() == 0
    shot(page, f"gm-check-pending-{viewport['width']}")

    page.click("[data-gm-roll]")
    wait_settled(page, count + 4)
    line = page.wait_for_selector("[data-gm-rolls] .play-gm-roll-line")
    total = int(line.get_attribute("data-gm-total") or "0")
    face = int(page.text_content(".play-gm-dice").strip().removeprefix("d20 [").removesuffix("]"))
    assert line.text_content().strip() == (  # Ren: strength 10, not proficient in athletics
        f"Athletics d20 [{face}] + 0 Strength = {total} vs DC 15 "
        + ("success" if total >= 15 else "failure")
    )
    assert total == face
    assert line.get_attribute("data-gm-outcome") == ("success" if total >= 15 else "failure")
    assert last_reply(page).startswith("Athletics: d20")
    assert page.is_hidden("[data-gm-check]")
    shot(page, f"gm-roll-breakdown-{viewport['width']}")
    assert page.errors == []
