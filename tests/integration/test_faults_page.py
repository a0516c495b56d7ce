"""The fault suite (issue 17): the play page in Chromium across a Redis restart (see
test_faults.py for the suite)."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from tests.integration import faults
from tests.integration.fault_clients import Player
from tests.integration.faults import (
    fault_env,
    hit_reply,
    start_daphne,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

# The shared fixtures: pytest finds them among the module's names.
close_connections, model, own_redis, table = (
    faults.close_connections,
    faults.model,
    faults.own_redis,
    faults.table,
)


# --- the play page across a Redis restart ----------------------------------------------------


@pytest.mark.browser
async def test_the_play_page_reconnects_and_resumes_the_stream_after_redis_restarts(
    model, own_redis, table, tmp_path
):
    """Every socket closes when Redis goes; the page reconnects with backoff, to a process
    that does not run the turn, and keeps showing the reply as it grows, without a reload."""
    if not os.path.exists("/usr/bin/chromium"):
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("needs /usr/bin/chromium: .ci/run installs it")
        pytest.skip("needs /usr/bin/chromium")
    from playwright.async_api import async_playwright

    env = fault_env(own_redis.url, model)
    writer = await start_daphne(env)
    page_server = await asyncio.to_thread(_runserver, {**env, "DEBUG": "true"}, tmp_path)
    sid = await sync_to_async(table.new_session)()
    player = Player(writer, sid, table.cookie)
    await player.start()
    client = "document.querySelector('[data-play-root]').__fabulaPlay"
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
            )
            context = await browser.new_context()
            cookie = {"name": "sessionid", "value": table.cookie.split("=", 1)[1]}
            await context.add_cookies([{**cookie, "url": page_server[1]}])
            await context.add_init_script(
                "(() => { const W = window.WebSocket; window.__sockets = 0;"
                " window.WebSocket = function (u, p) { window.__sockets += 1;"
                " return p === undefined ? new W(u) : new W(u, p); };"
                " window.WebSocket.prototype = W.prototype;"
                " ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'].forEach("
                "k => { window.WebSocket[k] = W[k]; }); })()"
            )
            page = await context.new_page()
            await page.goto(f"{page_server[1]}/play/{sid}/")
            await page.wait_for_selector(".conn[data-state=online]", timeout=20000)
            await page.evaluate("window.__noReload = true")
            model.script([hit_reply(14.0)])
            reply = await player.send_turn("hit-page")
            assert reply is not None
            await page.wait_for_function(
                f"() => {{ const c = {client}; return c.streamingId === {reply}"
                " && c.streamText.length > 40; }",
                timeout=20000,
            )
            await asyncio.to_thread(own_redis.restart)
            await page.wait_for_function("() => window.__sockets >= 2", timeout=20000)
            await page.wait_for_selector(".conn[data-state=online]", timeout=20000)
            shown = await page.evaluate(f"{client}.streamText.length")
            await page.wait_for_function(
                f"() => {{ const c = {client}; return c.streamingId === {reply}"
                f" && c.streamText.length > {shown}; }}",
                timeout=10000,
            )
            await page.wait_for_function(
                f"() => {{ const c = {client}; const m = c.find({reply});"
                " return c.streamingId === null && m && m.status === 'complete'; }",
                timeout=30000,
            )
            assert await page.evaluate("window.__noReload === true")
            text = await page.text_content(f'[data-message-id="{reply}"] .msg-body')
            assert text is not None and "You are hit." in text
            await browser.close()
    finally:
        await player.stop()
        writer.stop()
        page_server[0].terminate()
        page_server[0].wait(10)


def _runserver(env: dict[str, str], tmp_path: Any) -> tuple[Any, str]:
    """The page's own server: daphne's runserver, which also serves static files with DEBUG."""
    import subprocess

    from tests.integration.play_cluster import ROOT, VENV_BIN, free_port

    port = free_port()
    log = (tmp_path / "runserver.log").open("w")
    process = subprocess.Popen(
        [str(VENV_BIN / "python"), "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    import socket

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, (tmp_path / "runserver.log").read_text()
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process, f"http://127.0.0.1:{port}"
        time.sleep(0.2)
    raise RuntimeError("runserver did not start")
