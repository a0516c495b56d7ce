"""No console error on any studio page, in English, Spanish and Chinese (issue 16 §6).

The demo worlds' owner opens every page a link reaches from the studio (one page per kind of
page and world: the first entry stands for all entries), lets htmx load the lazy panels (the
checks, the prompt preview, the playtest) and the page must have logged no console error, no
uncaught exception and no failed request. The API docs are read the same way: their assets are
local files, so they load under the site's CSP with no network.

The server is ``runserver`` (daphne) on a free loopback port with a SQLite file, set up as
``make run`` does it: ``migrate`` then ``load_demo``; the worker's modules that only read the demo
share it (tests/browser/servers.py, ``share="demo"``). Each language's crawl is a test file of its
own (``test_console_clean_*.py``): pytest-xdist hands out whole files, so the three crawls (about a
minute each) can run side by side instead of one after another on one worker.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.pages import signed_in_page
from tests.browser.servers import AppServers

START = ["/studio/", "/studio/new/", "/studio/import/", "/accounts/", "/api/docs"]
ACTIONS = ("export", "delete", "duplicate", "move", "reorder", "remove", "disable", "enable")
SEED = """
import json
from tests.browser.seed_gm import login_cookie  # sets Django up
from django.contrib.auth.models import User
from studio.models import World

demo = User.objects.get(username="demo")
worlds = list(World.objects.filter(owner=demo).order_by("pk").values_list("pk", flat=True))
print(json.dumps({"cookie": login_cookie(demo), "worlds": worlds}))
"""


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    """Load the demo worlds, log their owner in, then serve with daphne on a free port."""
    return app_servers.get(["-c", SEED], demo=True, share="demo")


class Console:
    """What a page reports: console errors, uncaught exceptions, failed requests in flight."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        self.pending: set[Any] = set()
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))
        page.on("request", lambda request: self.pending.add(request))
        page.on("requestfinished", lambda request: self.pending.discard(request))
        page.on("requestfailed", self._failed)
        page.on("response", self._response)

    def _failed(self, request: Any) -> None:
        self.pending.discard(request)
        self.errors.append(f"failed: {request.method} {request.url} {request.failure}")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.errors.append(f"{response.status}: {response.request.method} {response.url}")

    def settle(self, page: Any) -> None:
        """Let htmx load the lazy panels: return once no request has been in flight a while."""
        quiet, deadline = 0, time.monotonic() + 15
        while quiet < 4 and time.monotonic() < deadline:
            page.wait_for_timeout(50)
            quiet = 0 if self.pending else quiet + 1


def shape(url: str) -> str:
    """One page per kind: ``/studio/w/1/entries/7/`` stands for every entry of world 1."""
    return re.sub(r"^(/studio/w/\d+/.+/)(edit/[^/]+|\d+)/$", r"\1X/", url)


def studio_links(page: Any) -> list[str]:
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
    links = [str(h).split("#")[0].split("?")[0] for h in hrefs]
    return [
        link
        for link in links
        if re.match(r"^/studio/w/\d+/", link) and not any(f"/{a}" in link for a in ACTIONS)
    ]


def crawl_without_console_errors(browser: Any, server: dict[str, Any], language: str) -> None:
    """Open every studio page once per kind in ``language``; none may report a problem."""
    page = signed_in_page(browser, server, language=language, console=None)
    context = page.context
    console = Console(page)
    todo = [*START, *(f"/studio/w/{pk}/" for pk in server["worlds"])]
    seen: set[str] = set()
    problems: dict[str, list[str]] = {}
    while todo:
        url = todo.pop(0)
        if shape(url) in seen:
            continue
        seen.add(shape(url))
        console.errors.clear()
        response = page.goto(server["base"] + url)
        console.settle(page)
        assert response is not None and response.status == 200, url
        if console.errors:
            problems[url] = list(console.errors)
        todo += [link for link in studio_links(page) if shape(link) not in seen]
    context.close()
    assert len(seen) > 50  # the crawl reached the editors of both worlds
    assert problems == {}, json.dumps(problems, ensure_ascii=False, indent=1)


def crawl_test(language: str) -> Callable[[Any, dict[str, Any]], None]:
    """The test of one language, for a ``test_console_clean_*.py`` module to hold (with
    ``server``, the fixture it asks for)."""

    @pytest.mark.timeout(300)
    def test(browser: Any, server: dict[str, Any]) -> None:
        crawl_without_console_errors(browser, server, language)

    return test
