"""Browser tests: headless Chromium through Playwright's sync API against ``live_server``.

Playwright's sync API runs an event loop in this thread, so Django's async-safety check would
refuse the ORM calls the live server and the fixtures make; we allow them for this tier only.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DESKTOP = {"width": 1440, "height": 1000}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session", autouse=True)
def wait_for_function_without_eval() -> Iterator[None]:
    """Make ``page.wait_for_function`` work under the site's CSP, which allows no eval.

    Playwright polls the predicate with ``eval`` from a timer inside the page, which the CSP
    (config/security.py: no 'unsafe-eval') refuses. This polls ``page.evaluate`` instead: each
    call runs through the DevTools protocol, which the CSP does not govern. Same arguments; it
    returns the truthy value rather than a handle.
    """
    try:
        from playwright.sync_api import Page
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
    except ImportError:
        yield
        return

    def poll(
        page: Any,
        expression: str,
        *,
        arg: Any = None,
        timeout: float | None = None,
        polling: Any = None,
    ) -> Any:
        deadline = time.monotonic() + (30_000 if timeout is None else timeout) / 1000
        interval = polling if isinstance(polling, int | float) else 50
        while not (value := page.evaluate(expression, arg)):
            if time.monotonic() > deadline:
                raise PlaywrightTimeout(f"wait_for_function: still falsy: {expression}")
            page.wait_for_timeout(interval)
        return value

    original = Page.wait_for_function
    Page.wait_for_function = poll  # type: ignore[method-assign,assignment]
    yield
    Page.wait_for_function = original  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium per module (the system one; never ``playwright install``)."""
    if not Path(CHROMIUM).exists():
        message = "needs /usr/bin/chromium (apt-get install -y chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)  # CI installs it; a missing browser there is a failure
        pytest.skip(message)
    from playwright import sync_api

    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser: Any, live_server: Any) -> Iterator[Any]:
    """A factory of pages in fresh contexts (one per user), closed after the test."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int] | None = None) -> Any:
        context = browser.new_context(viewport=viewport or DESKTOP, base_url=live_server.url)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def shot(page: Any, name: str, *, full_page: bool = True) -> Path:
    """Save a screenshot under tests/browser/artifacts/ (gitignored) and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if full_page:
        # Sticky panels would be drawn where the last click scrolled them.
        page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=full_page)
    return path
