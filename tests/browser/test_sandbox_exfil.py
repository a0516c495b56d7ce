"""A world's custom UI cannot send the game state it was given anywhere (issue 9, §3).

A hostile world's UI (Chromium, the real sandbox and CSPs) tries every way out we know to carry
the chat, the persona and the variables to a listener on 127.0.0.1: navigating its own frame
(``<meta http-equiv=refresh>``, ``location``, forms, links), popups, the top window, and every
kind of subresource (images, CSS, fetch, XHR, WebSocket, beacons, EventSource, prefetch, nested
frames, a script carrying a stolen nonce). Each attempt must be refused by the browser, seen as
its refusal message, and the listener must receive nothing, while the UI keeps rendering and
its postMessage API keeps working.

The server runs as in test_play.py (tests/browser/servers.py: runserver on a free port, SQLite,
seeded by seed.py); the hostile world is added by seed_world.py once the listener knows its port.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import CHROMIUM
from tests.browser.pages import signed_in_page
from tests.browser.servers import AppServers, Seed

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"needs {CHROMIUM}"),
    pytest.mark.timeout(300),
]

sync_api = pytest.importorskip("playwright.sync_api")

PERSONA = "Mirela of the Dunes"
SECRET = "SECRET-SYSTEM-PROMPT-do-not-show"

# The hostile UI: one button per trick, each building its URL from the state the UI was given.
UI_SOURCE = Path(__file__).with_name("hostile_ui.jsx")

# What Chromium says when it refuses each trick: the embedding page's frame-src (navigations of
# the frame itself), the iframe sandbox (popups, forms, the top window) or the frame's own CSP.
# Waiting for it is how a test knows the attempt was made and decided. Each message names the
# trick's URL, but for frame-src (the origin only) and the top window: those are told apart by
# their text, or by running alone.
FRAME_SRC = 'violates the following Content Security Policy directive: "frame-src http'
NAVIGATIONS = {
    "meta-refresh": FRAME_SRC,
    "location-href": FRAME_SRC,
    "location-replace": FRAME_SRC,
    "link-click": FRAME_SRC,
}
IN_PLACE = {
    "top-location": "'allow-top-navigation' or 'allow-top-navigation-by-user-activation'",
    "form-get": "'allow-forms' permission is not set",
    "form-post": "'allow-forms' permission is not set",
    "window-open": "'allow-popups' permission is not set",
    "link-target-blank": "'allow-popups' permission is not set",
    "img": 'directive: "img-src data: blob:"',
    "css-background": 'directive: "img-src data: blob:"',
    "css-import": "directive: \"style-src 'unsafe-inline'\"",
    "audio": 'directive: "media-src data: blob:"',
    "font-face": 'directive: "font-src data: blob:"',
    "fetch": "directive: \"connect-src 'none'\"",
    "xhr": "directive: \"connect-src 'none'\"",
    "websocket": "directive: \"connect-src 'none'\"",
    "beacon": "directive: \"connect-src 'none'\"",
    "eventsource": "directive: \"connect-src 'none'\"",
    "prefetch": "directive: \"default-src 'none'\"",
    "dynamic-import": 'directive: "script-src',
    "nonce-script": 'directive: "script-src',
    "nested-iframe": "directive: \"frame-src 'none'\"",
    # No CSP directive covers WebRTC: static/js/sandbox.js removes it before the world's code.
    "webrtc": "webrtc: TypeError",
}
UNNAMED = {"top-location", "nested-iframe", "webrtc", *NAVIGATIONS}

# Seed 004 "useYumina()": the state a UI may read, and the fields of a SandboxMessage.
API_STATE = {
    "variables", "globalVariables", "worldName", "worldId", "sessionId", "currentUser", "user",
    "messages", "isStreaming", "streamingContent", "streamingReasoning", "pendingChoices",
    "error", "readOnly", "entries", "checkpoints", "greetingContent", "mode", "capabilities",
    "canvasMode", "selectedModel", "userPlan", "preferredProvider", "language", "bgmVolume",
    "sfxVolume",
}  # fmt: skip
API_MESSAGE = {
    "id", "sessionId", "role", "content", "status", "errorMessage", "stateChanges",
    "stateSnapshot", "swipes", "activeSwipeIndex", "model", "tokenCount", "generationTimeMs",
    "compacted", "attachments", "createdAt",
}  # fmt: skip


# Keeps what the runtime's lockDown() replaces, in every frame, before any page script runs.
REAL_APIS = """
window.__real = {fetch: window.fetch, XMLHttpRequest: window.XMLHttpRequest,
                 WebSocket: window.WebSocket, EventSource: window.EventSource};
"""


class Listener:
    """A loopback HTTP server (and a UDP port of the same number, for STUN/TURN) that records
    every request line and datagram anyone sends it.

    Connections that send nothing are counted, not failed on: Chromium opens a TCP connection
    (a preconnect, no byte sent) to the target of a frame navigation before the embedding page's
    frame-src refuses it. No site header can stop that; nothing of the state goes out on it.
    """

    def __init__(self) -> None:
        self.hits: list[str] = []
        self.connections = 0
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def handle_one_request(self) -> None:
                super().handle_one_request()
                if self.raw_requestline:
                    listener.hits.append(self.raw_requestline[:80].decode(errors="replace"))

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<p>got it</p>")

            do_POST = do_HEAD = do_GET

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def verify_request(self, request: Any, client_address: Any) -> bool:
                listener.connections += 1
                return True

        self.server = Server(("127.0.0.1", 0), Handler)
        port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{port}"
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", port))

    def receive_datagrams(self) -> None:
        while True:
            try:
                data, _ = self.udp.recvfrom(65536)
            except OSError:
                return  # closed
            self.hits.append(f"UDP {data[:40]!r}")

    def __enter__(self) -> Listener:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        threading.Thread(target=self.receive_datagrams, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.udp.close()

    def reset(self) -> None:
        self.hits.clear()
        self.connections = 0


def hostile_world(target: str) -> dict[str, Any]:
    return {
        "id": "5b7e2f10-3c4d-4e5f-9a8b-7c6d5e4f3a2b",
        "version": "1.0.0",
        "name": "The Listening Dunes",
        "language": "en",
        "entries": [
            {"id": "narrator", "content": SECRET, "role": "system", "section": "system-presets"},
            {
                "id": "greeting",
                "content": "The wind carries every word you say.",
                "role": "greeting",
                "section": "chat-history",
            },
        ],
        "variables": [
            {"id": "health", "type": "number", "defaultValue": 80, "min": 0, "max": 100},
        ],
        "rootComponent": {
            "id": "ui",
            "name": "Hostile UI",
            "entryFile": "index.jsx",
            "files": {"index.jsx": UI_SOURCE.read_text().replace("__TARGET__", json.dumps(target))},
        },
    }


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    with Listener() as server:
        yield server


@pytest.fixture(scope="module")
def server(app_servers: AppServers, listener: Listener) -> Iterator[dict[str, Any]]:
    """seed.py's site plus the hostile world aimed at ``listener``, served with daphne."""
    world = json.dumps(hostile_world(listener.url)).encode()
    hostile = Seed(("tests/browser/seed_world.py", PERSONA), stdin=world, key="hostile")
    info = app_servers.get("tests/browser/seed.py", hostile)
    yield info
    app_servers.release(info)  # its world aims at this module's listener


def open_page(browser: Any, server: dict[str, Any], path: str) -> Any:
    page = signed_in_page(browser, server, console=None, viewport={"width": 1280, "height": 900})
    page.add_init_script(REAL_APIS)
    page.console = []
    page.on("console", lambda message: page.console.append(message.text))
    page.on("popup", lambda popup: page.console.append(f"POPUP OPENED {popup.url}"))
    page.goto(server["base"] + path)
    return page


def open_hostile_ui(browser: Any, server: dict[str, Any]) -> tuple[Any, Any]:
    page = open_page(browser, server, f"/play/{server['hostile']['session']}/")
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)
    ui = page.frame_locator(".play-custom iframe")
    ui.locator("#hp", has_text="Health: 80").wait_for(timeout=10000)
    return page, ui


def refused(page: Any, trick: str, refusal: str) -> bool:
    named = trick in UNNAMED
    return any(refusal in text and (named or f"/{trick}?" in text) for text in page.console)


def wait_for_refusals(
    page: Any, listener: Listener, refusals: dict[str, str], seconds: float = 30
) -> None:
    """Until the browser said it refused every trick, or the listener got something."""
    deadline = time.monotonic() + seconds  # a loaded machine reports late
    while not all(refused(page, trick, refusal) for trick, refusal in refusals.items()):
        if listener.hits or time.monotonic() > deadline:
            return
        page.wait_for_timeout(50)


def unrefused(page: Any, refusals: dict[str, str]) -> list[str]:
    return [trick for trick, refusal in refusals.items() if not refused(page, trick, refusal)]


def popups(page: Any) -> list[str]:
    return [text for text in page.console if text.startswith("POPUP OPENED")]


def test_world_ui_cannot_navigate_its_frame_to_another_host(
    browser: Any, server: dict[str, Any], listener: Listener
) -> None:
    for trick, refusal in NAVIGATIONS.items():
        page, ui = open_hostile_ui(browser, server)
        url = page.url
        listener.reset()
        ui.locator(f"#t-{trick}").click()
        wait_for_refusals(page, listener, {trick: refusal})
        assert listener.hits == [], trick
        assert unrefused(page, {trick: refusal}) == [], page.console
        assert page.url == url
        # The refused frame shows an error page; the play page itself plays on.
        page.click("[data-toggle-ui]")
        page.fill("[data-input]", "Still playing")
        page.click("[data-send]")
        page.wait_for_selector("[data-chat] :text('Still playing')", timeout=10000)
        page.context.close()


def test_world_ui_cannot_reach_any_host_from_its_own_page(
    browser: Any, server: dict[str, Any], listener: Listener
) -> None:
    page, ui = open_hostile_ui(browser, server)
    url = page.url
    listener.reset()
    for trick in IN_PLACE:
        ui.locator(f"#t-{trick}").click()
    wait_for_refusals(page, listener, IN_PLACE)
    assert listener.hits == []
    assert unrefused(page, IN_PLACE) == [], page.console
    assert popups(page) == []
    assert page.url == url
    # The UI still renders and its postMessage API still answers.
    ui.locator("#log", has_text="nested-iframe: ").wait_for()
    ui.locator("#toast").click()
    page.wait_for_selector(".toast--achievement:has-text('Still here')", timeout=5000)
    ui.locator("#go").click()
    ui.locator(".fy-msg--user", has_text="I walk on").last.wait_for(timeout=10000)
    assert listener.hits == []
    page.context.close()


def test_snapshot_holds_only_what_use_yumina_grants(
    browser: Any, server: dict[str, Any], listener: Listener
) -> None:
    page, ui = open_hostile_ui(browser, server)
    ui.locator("#go").click()
    # The session may hold an earlier "I walk on" from another test of this module.
    ui.locator(".fy-msg--user", has_text="I walk on").last.wait_for(timeout=10000)
    frame = next(f for f in page.frames if "/play/ui/" in f.url)
    snapshots = frame.evaluate("window.__snapshots")
    received = frame.evaluate("window.__received")
    assert set(received) <= {"snapshot", "reply"}
    last = snapshots[-1]
    assert set(last) <= API_STATE, set(last) - API_STATE
    for message in last["messages"]:
        assert set(message) <= API_MESSAGE, set(message) - API_MESSAGE
    assert last["user"]["name"] == PERSONA
    assert "I walk on" in [m["content"] for m in last["messages"]]
    assert SECRET not in json.dumps(snapshots)
    page.context.close()


def test_studio_playtest_frame_cannot_navigate_away(
    browser: Any, server: dict[str, Any], listener: Listener
) -> None:
    # The studio editor gets the playtest panel by htmx, with no frame policy of its own: the one
    # customui.js adds before making the frame is what refuses the navigation here.
    page = open_page(browser, server, f"/studio/w/{server['hostile']['world']}/")
    page.wait_for_selector("[data-playtest-reset]", timeout=10000)
    page.check('#playtest-panel input[name="mode"]')
    page.click("[data-playtest-reset]")
    listener.reset()
    # The panel may swap its frame for a fresh one just after the click (a playtest reset that
    # lands late on a loaded machine): the trick is then clicked again, in the new frame. A hit
    # on the listener at any attempt fails the test.
    for _attempt in range(3):
        ui = page.frame_locator("#playtest-panel .play-custom iframe")
        ui.locator("#hp", has_text="Health: 80").wait_for(timeout=15000)
        ui.locator("#t-meta-refresh").click()
        wait_for_refusals(page, listener, {"meta-refresh": FRAME_SRC}, seconds=15)
        if listener.hits or not unrefused(page, {"meta-refresh": FRAME_SRC}):
            break
    assert listener.hits == []
    assert unrefused(page, {"meta-refresh": FRAME_SRC}) == [], page.console
    page.context.close()
