"""A long session in real Chromium: it opens on the newest page and loads older ones on scroll.

The server is daphne (``runserver``) in a subprocess on a free loopback port, with its own SQLite
file seeded by tests/browser/seed_long.py: 600 messages, each with a 5 KB state snapshot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, shot
from tests.browser.pages import client_js, held, signed_in_page
from tests.browser.servers import AppServers

ROOT = Path(__file__).resolve().parents[2]
COUNT = 600
PAGE = 50

pytestmark = [pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    """A site seeded with a long session, served with daphne on a free port."""
    return app_servers.get(["tests/browser/seed_long.py", str(COUNT)])


def open_session(browser: Any, server: dict[str, Any]) -> Any:
    # Playwright evaluates string predicates with eval, which the page's CSP refuses.
    page = signed_in_page(browser, server, console=None, viewport=DESKTOP, bypass_csp=True)
    page.goto(f"{server['base']}/play/{server['session']}/")
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)
    return page


def scroll_to_top(page: Any) -> None:
    page.eval_on_selector("[data-messages]", "list => { list.scrollTop = 0; }")


def test_a_long_session_opens_on_its_newest_page_and_loads_older_ones_on_scroll_up(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_session(browser, server)
    assert held(page) == PAGE
    assert page.locator(".msg").count() == PAGE
    assert page.text_content(".msg:last-child .msg-body").startswith(f"Message {COUNT - 1}:")
    assert page.is_visible("[data-action=older]")
    scroll_to_top(page)
    page.wait_for_function(client_js(f"c.messages.length === {2 * PAGE}"))
    page.wait_for_function(client_js("!c.loadingOlder"))
    top = page.eval_on_selector("[data-messages]", "list => list.scrollTop")
    assert top > 0  # the reader stays on the message they were reading
    assert page.locator(".msg").first.text_content().count(f"Message {COUNT - 2 * PAGE}:") == 1
    shot(page, "long-session-older-page")
    while page.evaluate(client_js("c.hasMore")):
        before = held(page)
        scroll_to_top(page)
        page.wait_for_function(client_js(f"c.messages.length > {before} && !c.loadingOlder"))
    assert held(page) == COUNT
    assert not page.is_visible("[data-action=older]")
    assert page.text_content(".msg .msg-body") == "Dawn over the salt."
    assert page.errors == []


def test_a_long_session_plays_a_turn(browser: Any, server: dict[str, Any]) -> None:
    page = open_session(browser, server)
    page.fill("[data-input]", "I read the journal")
    page.click("[data-send]")
    page.wait_for_function(client_js(f"c.messages.length === {PAGE + 2} && c.streamingId === null"))
    assert page.locator(".msg--user .msg-body").last.text_content() == "I read the journal"
    assert page.evaluate(client_js("c.values.journal.startsWith('JOURNAL-MARK')"))
    assert page.errors == []
