"""Every member of seed 004's useYumina() API, end to end in Chromium (issue 15).

The conformance world (tests/browser/fixtures/conformance_*.json/jsx) has one button per API
member and renders the built-in ``Chat``, ``MessageList`` and ``MessageInput``. Each test clicks
and then reads the effect where it lands: the server's database (the session's state, the UI's
storage, the completions it paid for), the play page, or the frame. The escape attempts that
tests/browser/test_sandbox_exfil.py does not cover are here too: forged bridge messages,
``setVariable`` on a read-only or unknown variable and ``ai.complete`` past its cap are refused
with the reason in the frame's console and never applied.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import CHROMIUM
from tests.browser.servers import CONFORMANCE_SEEDS, AppServers, open_conformance_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"needs {CHROMIUM}"),
    pytest.mark.timeout(300),
]

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    return app_servers.get(*CONFORMANCE_SEEDS, FABULA_UI_AI_MAX_PROMPT_CHARS="5000")


@pytest.fixture
def ui(browser: Any, server: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    page, frame = open_conformance_page(browser, server)
    yield page, frame
    page.context.close()


def query(server: dict[str, Any], sql: str, *args: Any) -> list[Any]:
    with sqlite3.connect(server["db"]) as db:
        return db.execute(sql, args).fetchall()


def state(server: dict[str, Any]) -> dict[str, Any]:
    (row,) = query(
        server, "select state from play_session where id = ?", server["session"].replace("-", "")
    )
    return dict(json.loads(row[0]))


def click(frame: Any, name: str, expect: str | None = None) -> str:
    frame.locator(f"#b-{name}").click()
    out = frame.locator(f"#out-{name}")
    until(
        lambda: out.text_content() and (expect is None or expect in str(out.text_content())),
        message=lambda: f"{name}: {out.text_content()!r}",
    )
    return str(out.text_content())


def until(check: Any, timeout: float = 10, message: Any = None, page: Any = None) -> Any:
    """Poll ``check``; with ``page``, wait through Playwright so its events (console) arrive."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(message() if message else "it never got there")
        if page is not None:
            page.wait_for_timeout(50)
        else:
            time.sleep(0.05)
    return value


def test_set_variable_goes_through_the_engine_and_its_rules(ui, server):
    _page, frame = ui
    click(frame, "set-hp", "ok")
    frame.locator("#hp", has_text="HP 42").wait_for()
    values = state(server)["values"]
    assert values["health"] == 42
    assert values["alarm"] is True  # the variable-crossed rule fired on the server
    click(frame, "set-json", "ok")
    assert until(lambda: state(server)["values"]["npcs"] == {"aria": {"trust": 55}})


def test_read_only_unknown_and_ill_typed_variables_are_refused(ui, server):
    page, frame = ui
    assert "read-only" in click(frame, "set-ro", "ERR")
    assert "Unknown variable 'nowhere'" in click(frame, "set-unknown", "ERR")
    assert "not a number" in click(frame, "set-bad", "ERR")
    values = state(server)["values"]
    assert values["seed"] == 7 and "nowhere" not in values
    console = "\n".join(page.console)
    assert "setVariable refused: variable: The variable 'seed' is read-only." in console


def test_inject_context_reaches_the_next_prompt(ui, server):
    _page, frame = ui
    click(frame, "inject", "ok")
    click(frame, "inject-pos", "ok")
    saved = state(server)
    assert {"role": "user", "content": "The bells ring."} in saved["pending_context"]
    assert any(
        d["content"] == "Fog rolls in." and d["position"] == "bottom"
        for d in saved["directives"].values()
    )


def test_ai_complete_answers_through_the_server_and_is_capped(ui, server):
    _page, frame = ui
    before = query(server, "select count(*) from play_uicompletion")[0][0]
    assert not click(frame, "ai").startswith("ERR")
    assert not click(frame, "ai-string").startswith("ERR")
    assert query(server, "select count(*) from play_uicompletion")[0][0] == before + 2
    refused = click(frame, "ai-big", "ERR")
    assert "messages: the prompt is longer than 5000 characters" in refused
    assert query(server, "select count(*) from play_uicompletion")[0][0] == before + 2


def test_entries_show_only_what_the_player_may_see(ui, server):
    _page, frame = ui
    assert click(frame, "entry", "dunes") == "The dunes shift at night."
    assert click(frame, "secret") == "null"
    html = frame.locator("body").inner_html()
    assert "SECRET" not in html


def test_session_and_model_info(ui, server):
    _page, frame = ui
    info = json.loads(str(frame.locator("#info").text_content()))
    assert info["sessionId"] == server["session"]
    assert info["worldName"] == "The Bell Dunes"
    assert info["mode"] == "session" and info["user"] == "Ilse"
    assert info["language"] == "en", info


def test_assets_resolve_only_for_the_worlds_own(ui, server):
    _page, frame = ui
    frame.locator("#asset-ref").fill(server["asset"])
    # The frame loads data: URLs only: its world's assets reach it as such, and they play.
    assert click(frame, "asset") == "data:audio/"
    assert click(frame, "asset-load") == "loaded"
    assert click(frame, "asset-foreign", "(none)") == "(none)"


def test_storage_lives_on_the_server_per_world_and_session(ui, server):
    page, frame = ui
    click(frame, "store-set", "ok")
    assert click(frame, "store-get", "the dune") == "the dune"
    assert click(frame, "local", "kept") == "kept"
    assert click(frame, "session-store", "hello") == "hello"
    assert click(frame, "fetch-storage", "200") == "200"
    rows = dict(
        until(
            lambda: (
                len(query(server, "select scope, data from play_uistorage")) == 2
                and query(server, "select scope, data from play_uistorage")
            )
        )
    )
    assert json.loads(rows["world"]) == {"seen": "the dune", "shim": "kept", "fetched": 3}
    assert json.loads(rows[server["session"]]) == {"draft": "hello"}
    page.reload()  # a new page reads it back from the server
    frame.locator("#entries", has_text="map-note").wait_for(timeout=15000)
    assert click(frame, "store-get", "the dune") == "the dune"
    click(frame, "store-remove", "ok")
    assert until(
        lambda: (
            "seen"
            not in json.loads(
                dict(query(server, "select scope, data from play_uistorage"))["world"]
            )
        )
    )


def test_fetch_shim_answers_its_allowlist_only(ui, server):
    _page, frame = ui
    assert click(frame, "fetch-session", server["session"]) == server["session"]
    assert click(frame, "fetch-other", "403") == "403"
    assert click(frame, "fetch-away", "ERR").startswith("ERR fetch is not available")


def test_clipboard_needs_a_user_gesture(ui, server):
    page, frame = ui
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server["base"])
    click(frame, "clip")  # a click: the host may copy
    ui_frame = next(f for f in page.frames if "/play/ui/" in f.url)
    # Playwright's evaluate counts as a gesture; the page's transient activation lasts ~5 s.
    refused = ui_frame.evaluate(
        """() => new Promise(r => setTimeout(r, 5500)).then(() =>
            navigator.clipboard.writeText('no gesture').then(() => 'copied', e => e.message))"""
    )
    assert "needs a user gesture" in refused


def test_chat_actions_audio_and_toasts(ui, server):
    page, frame = ui
    click(frame, "send", "ok")
    chat = frame.locator("#chat-panel")
    chat.locator(".fy-msg--user", has_text="I ring the bell.").last.wait_for(timeout=10000)
    frame.locator("#list-panel .conf-assistant").nth(1).wait_for(timeout=10000)
    gold = state(server)["values"]["gold"]
    click(frame, "action", "ok")
    assert until(lambda: state(server)["values"]["gold"] == gold + 10, timeout=15)
    click(frame, "volume", "ok")
    click(frame, "toast", "ok")
    page.wait_for_selector(".toast:has-text('Hello from the UI')", timeout=5000)
    assert click(frame, "markdown", "<em>") == "<p><em>hi</em></p>"


def test_built_in_components_hide_directives_and_take_input(ui, server):
    _page, frame = ui
    greeting = frame.locator("#chat-panel .fy-msg--assistant").first
    greeting.wait_for()
    assert "Bells over the dunes, Ilse." in str(greeting.text_content())
    assert "[gold" not in frame.locator("body").inner_text()
    box = frame.locator("#chat-panel textarea")
    box.fill("I climb the dune.")
    box.press("Enter")
    frame.locator("#list-panel .conf-user", has_text="I climb the dune.").last.wait_for(
        timeout=10000
    )
    frame.locator("#chat-panel .fy-swipe").last.wait_for(timeout=15000)
    count = frame.locator("#chat-panel .fy-swipe-count").last
    assert str(count.text_content()) == "1/1"
    frame.locator("#chat-panel .fy-swipe-right").last.click()  # past the last: a new version
    count.filter(has_text="2/2").wait_for(timeout=15000)


def test_forged_bridge_messages_are_refused_in_the_frames_console(ui, server):
    page, _frame = ui
    ui_frame = next(f for f in page.frames if "/play/ui/" in f.url)
    health = state(server)["values"]["health"]
    ui_frame.evaluate(
        """() => {
        const host = window.top;
        host.postMessage({fabula: "ui", id: 90001, method: "eval", args: ["alert(1)"]}, "*");
        host.postMessage({fabula: "ui", id: 90002, method: "setVariable", args: "health"}, "*");
        host.postMessage({fabula: "ui", id: 90003, method: "setVariable", args: ["seed", 99]}, "*");
        const ui = (id, method, args) => host.postMessage({fabula: "ui", id, method, args}, "*");
        ui(90004, "setVariable", ["health", {x: 1}]);
        ui(90005, "navigate", ["//evil.example/"]);
        host.postMessage({fabula: "host", type: "snapshot", state: {variables: {health: 1}}}, "*");
        console.log("forged");
    }"""
    )
    wanted = [
        "message refused: unknown method eval",
        "message refused: setVariable: malformed call",
        "message refused: variable: The variable 'seed' is read-only.",
        "message refused: value: {'x': 1} is not a number",
        "message refused: bad path",
    ]
    until(
        lambda: all(any(w in line for line in page.console) for w in wanted),
        message=lambda: "\n".join(page.console),
        page=page,
    )
    values = state(server)["values"]
    assert values["health"] == health and values["seed"] == 7
