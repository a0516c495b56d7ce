"""An evaluation started from the studio in real Chromium (issue 13, "Done when"): two models
served by the loopback model server (the site's key on the OpenAI protocol, Alice's own key on
Anthropic's) and the offline automatic player, on a real Celery worker. The progress bar moves
live (htmx polling) to its end; the page then shows the report with its three plots and κ.

Server: ``runserver`` (daphne) on a free port with its own SQLite file (tests/browser/servers.py);
a Celery worker and a Redis of the test's own (tests.integration.faults) do the work.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.browser.conftest import DESKTOP, shot
from tests.browser.servers import AppServers
from tests.browser.test_gm_play import open_gallery
from tests.integration.faults import RedisServer, Worker
from tests.support.model_server import ModelServer, ReceivedRequest, Reply

pytestmark = [pytest.mark.timeout(300)]

SEED = "tests/browser/seed_evaluations.py"
NARRATION = "You look about; the fire crackles and nobody moves."


def master(request: ReceivedRequest) -> Reply | None:
    """Each master turn closes with log_event, slowly enough that the bar, polled once a
    second, is seen moving: its arguments stream in four chunks 0.4 s apart, ~1.2 s a turn.
    (The delay is between chunks: at 8 characters a chunk, 0.5 s made a turn last 6 s.)"""
    body = request.body if isinstance(request.body, dict) else {}
    if not body.get("tools"):
        return None
    close = {"narration": NARRATION, "suggestions": ["Look around"]}
    call = {"name": "log_event", "arguments": close}
    return Reply(text="", tool_calls=(call,), chunk_size=32, delay=0.4)


@pytest.fixture(scope="module")
def model() -> Iterator[ModelServer]:
    with ModelServer() as server:
        server.route = master
        yield server


@pytest.fixture(scope="module")
def server(app_servers: AppServers, model: ModelServer) -> Iterator[dict[str, Any]]:
    """The site, its database seeded with Alice and her world, and a worker on its own Redis."""
    redis = RedisServer()
    try:
        info = app_servers.get(SEED, **site_env(model, redis.url))
        worker = Worker(info["env"], "browser-eval")
        try:
            yield info
        finally:
            worker.stop()
            app_servers.release(info)  # its Redis and model server end with this module
    finally:
        redis.kill()


def site_env(model: ModelServer, redis_url: str = "") -> dict[str, str]:
    """The site's settings: its Redis (none: the embedded default), the loopback model server."""
    return {
        "REDIS_URL": redis_url,
        "FABULA_PROVIDER": "openai",
        "FABULA_BASE_URL": model.openai_url,
        "FABULA_MODEL": "test-model",
        "FABULA_API_KEY": "sk-test",
        "FABULA_ALLOW_PRIVATE_MODEL_HOSTS": "true",
        # Alice signed up today: her first-day share of the site's key (20 actions) would stop
        # the second run; it is tested in tests/studio/test_evaluation_budget.py.
        "FABULA_NEW_ACCOUNT_DAILY_QUOTA": "0",
        "OWN_MODEL_URL": model.anthropic_url,
    }


def bar(page: Any) -> tuple[int, int]:
    value = page.evaluate("document.querySelector('#evaluation-bar').value")
    top = page.evaluate("document.querySelector('#evaluation-bar').max")
    return int(value), int(top)


def test_an_evaluation_runs_from_the_studio_with_a_live_bar_and_ends_with_the_report(
    browser: Any, server: dict[str, Any], model: ModelServer
) -> None:
    page = open_gallery(browser, server, DESKTOP)
    page.goto(f"{server['base']}/studio/w/{server['world']}/evaluations/")
    page.check("input[name=kind][value=auto]")
    page.check("input[name=models][value='site:test-model']")
    page.check("input[name=models][value='own:own-model']")
    page.fill("input[name=games]", "2")
    page.fill("input[name=actions]", "4")
    page.select_option("select[name=player]", "offline")
    shot(page, "evaluation-start")
    page.click(".evaluation-form button[type=submit]")

    page.wait_for_selector("#evaluation-bar")
    seen = [bar(page)]
    while page.locator("#evaluation-progress[data-status=done]").count() == 0:
        try:
            seen.append(bar(page))
        except PlaywrightError:  # the run ended: HX-Refresh reloads the page for its report
            page.wait_for_load_state()
        page.wait_for_timeout(200)
    page.wait_for_selector("#report")
    shot(page, "evaluation-report")

    value, top = bar(page)
    assert (value, top) == (16, 16)  # 2 models × 2 games × 4 actions
    values = [v for v, _ in seen]
    assert values == sorted(values) and len(set(values)) >= 2  # it moved, never back
    assert page.locator("#report .evaluation-plots svg").count() == 3
    kappa = float(page.text_content("[data-kappa]") or "nan")
    assert 0.5 < kappa <= 1
    assert "test-model (site)" in page.text_content(".evaluation-summary")
    assert "own-model (own key)" in page.text_content(".evaluation-summary")
    # Every step was narrated by the loopback server, on both protocols: the export says so
    # (the model server's own request list is not read, so the check holds whichever of this
    # session's servers the worker happened to reach first).
    href = page.get_attribute("#report a[href$='export.json']", "href")
    export = page.request.get(f"{server['base']}{href}").json()
    narrated = {
        g["model"]
        for g in export["games"]
        if any(s["narration"].startswith(NARRATION) for s in g["steps"])
    }  # the engine's own moves (go, take) need no model
    assert len(export["games"]) == 4 and len(narrated) == 2

    page.locator(".games a").first.click()
    page.wait_for_selector(".transcript .step")
    assert page.locator(".transcript .step").count() == 4
    assert page.errors == []


def test_a_route_lays_the_models_narrations_side_by_side(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_gallery(browser, server, DESKTOP)
    page.goto(f"{server['base']}/studio/w/{server['world']}/evaluations/")
    page.check("input[name=kind][value=route]")
    page.check("input[name=models][value=offline]")
    page.check("input[name=models][value='site:test-model']")
    page.click(".evaluation-form button[type=submit]")

    page.wait_for_selector("#evaluation-progress[data-status=done]", timeout=120_000)
    page.wait_for_selector("#report .side-by-side")
    shot(page, "evaluation-route")

    rows = page.locator(".side-by-side tbody tr")
    assert rows.count() == 10  # the world's default route
    assert page.locator(".side-by-side thead th").all_text_contents()[1:] == [
        "offline",
        "test-model (site)",
    ]
    assert NARRATION in rows.nth(1).text_content()
    assert page.errors == []
