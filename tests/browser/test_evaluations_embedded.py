"""An evaluation started on the embedded default (no Redis, eager Celery) in real Chromium
(issue 35 §6): the Start button's request returns before the run has played, and the progress
bar is seen moving to its end, as with a worker (tests/browser/test_evaluations.py).

Server: ``runserver`` with its own SQLite file and no REDIS_URL, so Celery is eager and the run
goes to studio/evaluations/background.py's thread; the loopback model server answers each
master turn slowly enough for the bar, polled once a second, to be seen between its ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.browser.conftest import DESKTOP
from tests.browser.servers import AppServers
from tests.browser.test_evaluations import SEED, bar, master, site_env
from tests.browser.test_gm_play import open_gallery
from tests.support.model_server import ModelServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def model() -> Iterator[ModelServer]:
    with ModelServer() as server:
        server.route = master
        yield server


@pytest.fixture(scope="module")
def server(app_servers: AppServers, model: ModelServer) -> Iterator[dict[str, Any]]:
    info = app_servers.get(SEED, **site_env(model))  # no REDIS_URL: the embedded default
    yield info
    app_servers.release(info)  # it talks to this module's model server


def test_start_returns_at_once_and_the_bar_moves_on_the_embedded_default(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_gallery(browser, server, DESKTOP)
    page.goto(f"{server['base']}/studio/w/{server['world']}/evaluations/")
    page.check("input[name=kind][value=auto]")
    page.check("input[name=models][value='site:test-model']")
    page.fill("input[name=games]", "1")
    page.fill("input[name=actions]", "6")
    page.select_option("select[name=player]", "offline")
    page.click(".evaluation-form button[type=submit]")

    page.wait_for_selector("#evaluation-bar")
    first = bar(page)
    assert first[0] < first[1]  # the request did not play the run
    seen = [first]
    while page.locator("#evaluation-progress[data-status=done]").count() == 0:
        try:
            seen.append(bar(page))
        except PlaywrightError:  # the run ended: HX-Refresh reloads the page for its report
            page.wait_for_load_state()
        page.wait_for_timeout(200)
    page.wait_for_selector("#report")
    assert bar(page) == (6, 6)
    values = [v for v, _ in seen]
    assert values == sorted(values) and len(set(values)) >= 2
    assert page.errors == []
