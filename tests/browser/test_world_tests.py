"""World tests from the studio in real Chromium against daphne (issue 13 §3): the Lantern's
shipped tests run green, then one assertion broken in the editor runs red with its diff.

The server is ``runserver`` (daphne) in a subprocess on a free loopback port with its own SQLite
file, set up as ``make run`` does it: ``migrate`` then ``load_demo`` (which loads the demo
worlds' tests); tests/browser/seed_worldtests.py logs the demo user in. Celery is eager, as in
the embedded mode; the run panel polls until the run ends either way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, shot
from tests.support.ports import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
FIRST_TEST = "The rain greeting opens the story"

pytestmark = [pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Migrate, load the demo worlds and their tests, log the demo user in, serve with daphne."""
    tmp = tmp_path_factory.mktemp("world-tests")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "MEDIA_ROOT": str(tmp / "media"),
        "REDIS_URL": "",
        "DEBUG": "true",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "FABULA_PROVIDER": "offline",
        "PYTHONPATH": str(ROOT),
    }
    python = sys.executable
    for command in (["migrate", "--noinput", "-v0"], ["load_demo"]):
        subprocess.run([python, "manage.py", *command], cwd=ROOT, env=env, check=True)
    seeded = subprocess.run(
        [python, "tests/browser/seed_worldtests.py"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    info: dict[str, Any] = json.loads(seeded.stdout.decode().strip().splitlines()[-1])
    port = free_port()
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log)
        info["base"] = f"http://127.0.0.1:{port}"
        yield info
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def open_tests(browser: Any, server: dict[str, Any]) -> Any:
    """The Lantern's world-test page, logged in as its owner; page errors are collected."""
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(15_000)
    context.add_cookies([{"name": "sessionid", "value": server["cookie"], "url": server["base"]}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda msg: errors.append(msg.text) if msg.type == "error" else None,
    )
    page.errors = errors
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
