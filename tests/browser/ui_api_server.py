"""A Fabula server holding the conformance world of issue 15 (tests/browser/fixtures), for
tests/browser/test_customui_api.py and bench/customui_bridge.py.

Its own SQLite file, ``migrate``, tests/browser/seed.py (Alice and her cookie), then
tests/browser/seed_ui_api.py (the world, an asset, a session), then ``runserver`` on a free port.
Yields the seeds' JSON with ``base`` and ``db`` (the SQLite path, to read the server's state).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.ports import free_port, wait_for_port
from tests.support.sqlite_template import copy_migrated_database

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def conformance_server(tmp: Path, **env_extra: str) -> Iterator[dict[str, Any]]:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "MEDIA_ROOT": str(tmp / "media"),
        "REDIS_URL": "",
        "DEBUG": "true",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "FABULA_PROVIDER": "offline",
        "PYTHONPATH": str(ROOT),
        **env_extra,
    }

    def run(*args: str) -> Any:
        done = subprocess.run(
            [sys.executable, *args], cwd=ROOT, env=env, check=True, capture_output=True
        )
        lines = done.stdout.decode().strip().splitlines()
        return json.loads(lines[-1]) if lines else None

    copy_migrated_database(tmp)
    info: dict[str, Any] = run("tests/browser/seed.py")
    info.update(run("tests/browser/seed_ui_api.py"))
    info["db"] = tmp / "db.sqlite3"
    port = free_port()
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
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


def open_conformance_page(browser: Any, server: dict[str, Any]) -> tuple[Any, Any]:
    """Alice's play page of the conformance session, its UI rendered: (page, frame locator)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    context.add_cookies([{"name": "sessionid", "value": server["cookie"], "url": server["base"]}])
    page = context.new_page()
    page.console = []
    page.on("console", lambda message: page.console.append(message.text))
    page.on("pageerror", lambda error: page.console.append(f"PAGE ERROR {error}"))
    page.goto(f"{server['base']}/play/{server['session']}/")
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)
    frame = page.frame_locator(".play-custom iframe")
    frame.locator("#entries", has_text="map-note").wait_for(timeout=15000)
    return page, frame
