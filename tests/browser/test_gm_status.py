"""The page shows the game (issue 33 §4), in real Chromium against daphne: Brackenford's Status
panel holds Ren's sheet and follows his moves, in English and in Spanish; the Lantern's JSON
variable is a table, never raw JSON.

The server is the one of test_gm_play.py: ``migrate``, ``load_demo`` and tests/browser/seed_gm.py
(Alice, logged in by her cookie); no model is configured.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, PHONE, shot
from tests.browser.pages import held, signed_in_page, wait_settled
from tests.browser.servers import AppServers

pytestmark = [pytest.mark.timeout(300)]

SHEET = "[data-gm-status] [data-gm-sheet]"


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    return app_servers.get("tests/browser/seed_gm.py", demo=True, share="demo")


def open_page(browser: Any, server: dict[str, Any], language: str, viewport: Any = None) -> Any:
    """Alice's browser in ``language`` on the gallery; page errors and CSP reports collected."""
    page = signed_in_page(
        browser, server, language=language, viewport=viewport or DESKTOP, locale=language
    )
    page.goto(server["base"] + "/")
    return page


def start(page: Any, world: str, character: str | None = None) -> None:
    page.locator("article.card", has_text=world).locator("a[href*='/play/start/']").click()
    if character:
        page.select_option("select[name=character]", character)
    page.click(".start-form button[type=submit]")
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)


def say(page: Any, text: str) -> None:
    count = held(page)
    page.fill("[data-input]", text)
    page.click("[data-send]")
    wait_settled(page, count + 2)


def sheet_part(page: Any, part: str) -> str:
    return " ".join(str(page.locator(f"{SHEET} [data-gm-{part}]").inner_text()).split())


def test_the_status_panel_follows_rens_moves_in_english(browser: Any, server: dict[str, Any]):
    page = open_page(browser, server, "en")
    start(page, "Brackenford", "ren")
    page.wait_for_selector(f"{SHEET}:has-text('Ren Ashby')")
    assert "This world tracks no variables." not in str(page.text_content("[data-side]"))
    assert sheet_part(page, "hp") == "Hit points 9 / 9"
    assert sheet_part(page, "money") == "3"
    assert sheet_part(page, "equipped") == "dagger"
    assert sheet_part(page, "people") == "Hilda Brant (innkeeper) here Greta Vell (moneylender)"
    assert "Father Aldric" not in str(page.text_content(SHEET))

    say(page, "take the coil of rope")
    page.wait_for_selector(f"{SHEET} [data-gm-items]:has-text('coil of rope')")
    assert sheet_part(page, "items") == "dagger ×1 equipped coil of rope ×1"

    say(page, "go to the market square")
    say(page, "read the notice board")
    page.wait_for_selector(f"{SHEET} [data-gm-quests]:has-text('Reward')")
    quests = sheet_part(page, "quests")
    assert quests.startswith("active Reward: the chapel's chalice")
    assert "Stray dog" in sheet_part(page, "notices")
    assert "You owe 12 to Greta Vell" in sheet_part(page, "debts")
    assert "Market Square here" in sheet_part(page, "places")
    assert "Day 1, morning · Market Square" in sheet_part(page, "when")
    page.locator("[data-side]").screenshot(path="/tmp/gm-status-en.png")
    shot(page, "gm-status-en")
    assert page.errors == []


FULL_NARRATION = {  # a live master's first turn of a chat, as commit_turn saves it
    "id": 9999,
    "position": 9999,
    "role": "assistant",
    "status": "complete",
    "content": "Hilda sets down a mug and looks you over.",
    "speech": {
        "narration": "Hilda sets down a mug and looks you over.",
        "bubbles": [{"name": "Hilda Brant", "text": "What'll it be?", "gesture": "wipes the bar"}],
        "aside": "",
    },
}


def test_the_actor_reads_the_prose_then_the_bubbles_of_a_full_narration(
    browser: Any, server: dict[str, Any]
):
    page = open_page(browser, server, "en")
    start(page, "Brackenford", "ren")
    client = "document.querySelector('[data-play-root]').__fabulaPlay"
    page.evaluate(f"(m) => {client}.on_message_done({{message: m}})", FULL_NARRATION)
    reply = page.locator(".msg--assistant.is-speech").last
    assert reply.locator(".speech-narration").inner_text() == FULL_NARRATION["content"]
    assert reply.locator(".speech-name").inner_text() == "Hilda Brant"
    assert reply.locator(".speech-gesture").inner_text() == "wipes the bar"
    assert reply.locator(".speech-text").inner_text() == "What'll it be?"
    reply.screenshot(path="/tmp/gm-actor-full-narration-bubbles.png")
    assert page.errors == []


def test_the_status_panel_speaks_spanish(browser: Any, server: dict[str, Any]):
    page = open_page(browser, server, "es")
    start(page, "Brackenford", "ren")
    page.wait_for_selector(f"{SHEET}:has-text('Ren Ashby')")
    assert sheet_part(page, "hp") == "Puntos de golpe 9 / 9"
    say(page, "cojo la cuerda")
    page.wait_for_selector(f"{SHEET} [data-gm-items]:has-text('rollo de cuerda')")
    say(page, "voy a la plaza")
    say(page, "leo el tablón")
    page.wait_for_selector(f"{SHEET} [data-gm-quests]:has-text('Recompensa')")
    text = " ".join(str(page.text_content(SHEET)).split())
    for words in ["Diario", "Misiones", "en curso", "Debes 12 a Greta Vell", "Gente que conoces"]:
        assert words in text, words
    assert "Día 1, la mañana · Plaza del Mercado" in text  # the world's es words
    for english in ["Hit points", "Journal", "Quests", "People you know", "You owe"]:
        assert english not in text, english
    page.locator("[data-side]").screenshot(path="/tmp/gm-status-es.png")
    shot(page, "gm-status-es")
    assert page.errors == []


def test_a_json_variable_is_a_table_not_raw_json(browser: Any, server: dict[str, Any]):
    page = open_page(browser, server, "en", PHONE)
    start(page, "Lantern")
    page.click("[data-toggle-side]")
    row = page.wait_for_selector("[data-status] [data-variable=inventory] table.json-table")
    headers = [h.text_content() for h in row.query_selector_all("th")]
    cells = [
        [c.text_content() for c in r.query_selector_all("td")]
        for r in row.query_selector_all("tbody tr")
    ]
    assert headers == ["name", "qty"]
    assert cells == [["Travelling cloak", ""], ["Silver coin", "3"]]
    status = str(page.text_content("[data-status]"))
    assert "{" not in status and '"name"' not in status
    assert page.locator("[data-gm-status]").count() == 0
    page.locator("[data-side]").screenshot(path="/tmp/plain-json-status.png")
    assert page.errors == []
