"""World tests from the studio in real Chromium against daphne (issue 13 §3): the Lantern's
shipped tests run green, then one assertion broken in the editor runs red with its diff.

The server is ``runserver`` (daphne) in a subprocess on a free loopback port with a SQLite file
(shared with the demo's other readers, tests/browser/servers.py), set up as ``make run`` does
it: ``migrate`` then ``load_demo`` (which loads the demo worlds' tests);
tests/browser/seed_worldtests.py logs the demo user in. Celery is eager, as in
the embedded mode; the run panel polls until the run ends either way.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, shot
from tests.browser.pages import signed_in_page
from tests.browser.servers import AppServers

FIRST_TEST = "The rain greeting opens the story"

pytestmark = [pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    """The demo worlds and their tests, the demo user logged in, served with daphne."""
    return app_servers.get("tests/browser/seed_worldtests.py", demo=True, share="demo")


def open_tests(browser: Any, server: dict[str, Any]) -> Any:
    """The Lantern's world-test page, logged in as its owner; page errors are collected."""
    page = signed_in_page(browser, server, timeout_ms=15_000, viewport=DESKTOP)
    page.goto(f"{server['base']}/studio/w/{server['world']}/tests/")
    return page


def run_tests(page: Any, status: str) -> None:
    page.click("button[data-run-tests]")
    page.wait_for_selector(f"#test-run[data-run-status={status}]")


def test_the_demo_tests_run_green_then_a_broken_assertion_runs_red_with_its_diff(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_tests(browser, server)
    assert page.locator("[data-world-test]").count() == 5
    assert page.locator("#test-run").get_attribute("data-run-status") == "none"

    run_tests(page, "passed")
    results = page.locator("[data-test-result]")
    assert results.count() == 5
    assert page.locator('[data-test-result][data-status="passed"]').count() == 5
    assert page.locator("[data-run-summary]").text_content().strip() == "5 of 5 tests passed."
    shot(page, "world-tests-green")

    page.click(f'[data-world-test="{FIRST_TEST}"] a')
    contains = page.locator('textarea[name="step-0-expect_contains"]')
    assert contains.input_value().splitlines()[0] == "Rain hammers the shutters of the Lantern."
    contains.fill("Snow hammers the shutters of the Lantern.\nMira Ashgrove")
    shot(page, "world-test-editor")
    page.click("button[data-save-test]")
    page.wait_for_selector("[data-run-tests]")

    run_tests(page, "failed")
    broken = page.locator(f'[data-test-result="{FIRST_TEST}"]')
    assert broken.get_attribute("data-status") == "failed"
    assert page.locator('[data-test-result][data-status="passed"]').count() == 4
    failure = broken.locator('[data-failure="textContains"]')
    assert failure.is_visible()
    assert 'the text does not show "Snow hammers the shutters of the Lantern."' in (
        failure.text_content() or ""
    )
    assert failure.locator(".diff-del").text_content() == (
        "- Snow hammers the shutters of the Lantern."
    )
    assert (failure.locator(".diff-add").first.text_content() or "").startswith(
        "+ Rain hammers the shutters of the Lantern."
    )
    assert broken.locator('[data-step-status="failed"] .step-mark').text_content() == "✗"
    shot(page, "world-tests-red")
    assert page.errors == []
