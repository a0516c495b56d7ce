"""Browser tests: headless Chromium through Playwright's sync API against ``live_server`` or,
where a module needs a site set up as ``make run`` does, ``app_servers`` (tests/browser/servers.py).

Both are started once per worker and shared by its modules: ``browser`` is the worker's one
Chromium (a fresh context per user; what a module leaves open is closed when it ends), and
``app_servers.get(...)`` one server per configuration.

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

from tests.browser.servers import AppServers

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

# Chromium's headless shell when installed (Debian's chromium-headless-shell: the same build as
# /usr/bin/chromium, without the desktop browser around it). It is what Playwright itself runs
# headless tests on, and it spends ~40 % less CPU a page than /usr/bin/chromium's headless mode,
# which brought the browser tier from ~6.5 to ~3.8 min on two cores. /usr/bin/chromium otherwise
# (and always with FABULA_CHROMIUM=/usr/bin/chromium).
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("FABULA_CHROMIUM") or (
    HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() else "/usr/bin/chromium"
)
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


class Chromiums:
    """Chromium launched once per worker (and per set of extra flags), a fresh context per user.

    Playwright's sync API keeps an event loop running in this thread while it is started, which
    other tiers' asyncio tests in the same worker cannot share: the hook below stops it when the
    worker's next test is not a browser test, and the next browser module launches it again.
    """

    def __init__(self) -> None:
        self.launched = 0
        self._playwright: Any = None
        self._browsers: dict[tuple[str, ...], Any] = {}

    def get(self, *extra_args: str) -> Any:
        if extra_args not in self._browsers:
            if self._playwright is None:
                from playwright import sync_api

                self._playwright = sync_api.sync_playwright().start()
            args = [*CHROMIUM_ARGS, *extra_args]
            launched = self._playwright.chromium.launch(executable_path=CHROMIUM, args=args)
            self._browsers[extra_args] = launched
            self.launched += 1
        return self._browsers[extra_args]

    def close_contexts(self) -> None:
        """Close what a module left open (pages its module-scoped fixtures kept)."""
        for launched in self._browsers.values():
            for context in launched.contexts:
                context.close()

    def stop(self) -> None:
        for launched in self._browsers.values():
            launched.close()
        self._browsers.clear()
        if self._playwright is not None:
            self._playwright.stop()
            self._playwright = None


CHROMIUMS = Chromiums()


def needs_chromium() -> None:
    if not Path(CHROMIUM).exists():
        message = f"needs {CHROMIUM} (apt-get install -y chromium-headless-shell, or chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)  # CI installs it; a missing browser there is a failure
        pytest.skip(message)


@pytest.fixture(scope="session")
def chromiums() -> Iterator[Chromiums]:
    """The worker's Chromium launcher: ``chromiums.get()`` is the shared browser. Stopped before
    the session fixtures set up earlier end (one of tests/play runs ``asyncio.run``)."""
    yield CHROMIUMS
    CHROMIUMS.stop()


@pytest.fixture(scope="module")
def browser(chromiums: Chromiums) -> Any:
    """The worker's one Chromium (the system's, ``CHROMIUM``; never ``playwright install``)."""
    needs_chromium()
    return chromiums.get()


@pytest.fixture(scope="module", autouse=True)
def contexts_closed_after_module(chromiums: Chromiums) -> Iterator[None]:
    """Each module leaves the shared Chromium as it found it, as closing its own browser did."""
    yield
    chromiums.close_contexts()


@pytest.fixture(scope="session")
def app_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServers]:
    """The worker's Fabula servers, one per configuration, shared by the modules asking for it:
    ``app_servers.get(seed, ..., demo=False, **env)`` (tests/browser/servers.py)."""
    servers = AppServers(tmp_path_factory.mktemp("sites"))
    yield servers
    servers.stop_all()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Stop Playwright once this worker leaves the browser tier (after the fixtures' teardown)."""
    yield
    if nextitem is None or f"{os.sep}browser{os.sep}" not in str(nextitem.fspath):
        CHROMIUMS.stop()


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
