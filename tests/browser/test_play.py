"""The play page in a real headless Chromium against a real ASGI server (daphne).

The server runs as a subprocess on a free loopback port with its own SQLite file database, seeded
by tests/browser/seed.py (tests/browser/servers.py). Offline sessions answer without a model; the
"live" session talks to the loopback model server (tests/support/model_server.py), which streams
slowly so a reload can land in the middle of a reply. Screenshots go to tests/browser/artifacts/
(gitignored).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import CHROMIUM, Chromiums
from tests.browser.pages import client_js, held, signed_in_page, wait_settled
from tests.browser.servers import AppServers
from tests.support.model_server import ModelServer, Reply

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
AUTOPLAY = "--autoplay-policy=no-user-gesture-required"  # beside conftest.py's CHROMIUM_ARGS
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}
SLOW_TEXT = " ".join(f"The wind turns the page of the road, line {n}." for n in range(1, 31))

pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"needs {CHROMIUM}"),
    pytest.mark.timeout(240),
]

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def model() -> Iterator[ModelServer]:
    with ModelServer(default=Reply(text=SLOW_TEXT, chunk_size=6, delay=0.04)) as server:
        yield server


@pytest.fixture(scope="module")
def server(app_servers: AppServers, model: ModelServer) -> Iterator[dict[str, Any]]:
    """A site seeded by seed.py, served with daphne; the live session talks to ``model``."""
    info = app_servers.get(
        "tests/browser/seed.py",
        FABULA_PROVIDER="openai",
        FABULA_BASE_URL=model.openai_url,
        FABULA_MODEL="test-model",
        FABULA_API_KEY="sk-test",
    )
    yield info
    app_servers.release(info)  # it talks to this module's model server


@pytest.fixture(scope="module")
def browser(chromiums: Chromiums) -> Any:
    """The worker's Chromium that plays audio without a gesture (the audio tests below)."""
    return chromiums.get(AUTOPLAY)


def open_page(browser: Any, server: dict[str, Any], path: str, viewport: dict[str, int]) -> Any:
    page = signed_in_page(browser, server, console="csp", viewport=viewport)
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(server["base"] + path)
    return page


def wait_online(page: Any) -> None:
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)


def send(page: Any, text: str) -> None:
    before = held(page)
    page.fill("[data-input]", text)
    page.click("[data-send]")
    wait_settled(page, before + 2)


def stat_value(page: Any, variable: str) -> str:
    return str(page.text_content(f'[data-variable="{variable}"] .stat-value')).strip()


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def test_three_turns_change_the_status_panel_and_choices_send(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_page(browser, server, f"/play/{server['offline']}/", PHONE)
    wait_online(page)
    assert stat_value(page, "steps") == "0 / 10"
    send(page, "I look around the camp")
    assert stat_value(page, "steps") == "1 / 10"
    assert page.text_content(".msg--user .msg-body") == "I look around the camp"
    send(page, "I walk north")
    toast = page.wait_for_selector(".toast--achievement", timeout=5000)
    assert toast.text_content().strip().startswith("★Two turns survived!")
    choice = page.wait_for_selector(".choice", timeout=5000)
    choice_text = choice.text_content()
    before = held(page)
    choice.click()
    wait_settled(page, before + 2)
    assert page.locator(".msg--user .msg-body").last.text_content() == choice_text
    assert stat_value(page, "steps") == "3 / 10"
    width = page.eval_on_selector('[data-variable="steps"] .bar-fill', "e => e.style.width")
    assert width == "30%"
    shot(page, "phone-three-turns")
    page.click("[data-toggle-side]")
    page.wait_for_timeout(300)
    shot(page, "phone-status-drawer")
    assert page.errors == []


def test_swipe_and_revert(browser: Any, server: dict[str, Any]) -> None:
    page = open_page(browser, server, f"/play/{server['offline']}/", DESKTOP)
    wait_online(page)
    count = held(page)
    page.locator('.msg:last-child [data-action="swipe-right"]').click()
    wait_settled(page, count)
    page.wait_for_function(client_js("c.messages[c.messages.length - 1].swipes.length === 2"))
    assert page.text_content(".msg:last-child .swipe-count") == "2/2"
    page.locator('.msg:last-child [data-action="swipe-left"]').click()
    page.wait_for_function(client_js("c.messages[c.messages.length - 1].active_swipe === 0"))
    assert page.text_content(".msg:last-child .swipe-count") == "1/2"
    first_user = page.locator(".msg--user").first
    first_user.hover()
    first_user.locator('[data-action="revert"]').click()
    wait_settled(page, 2)
    assert stat_value(page, "steps") == "0 / 10"
    shot(page, "desktop-after-revert")
    assert page.errors == []


def test_greeting_switch_shows_creator_html_as_text(browser: Any, server: dict[str, Any]) -> None:
    page = open_page(browser, server, f"/play/{server['fresh']}/", PHONE)
    wait_online(page)
    assert "salt flats" in page.text_content(".msg-body")
    page.click('[data-action="greeting-next"]')
    page.wait_for_function(client_js("c.messages[0].active_swipe === 1"))
    body = page.locator(".msg-body").first
    assert body.text_content() == "Night falls over the dunes. <b>Nobody</b> sleeps."
    assert body.locator("b").count() == 0
    assert page.errors == []


def test_reload_mid_stream_loses_no_text(browser: Any, server: dict[str, Any]) -> None:
    page = open_page(browser, server, f"/play/{server['live']}/", DESKTOP)
    wait_online(page)
    count = held(page)
    page.fill("[data-input]", "Tell me about the road")
    page.click("[data-send]")
    page.wait_for_function(client_js("c.streamingId !== null && c.streamText.length > 40"))
    assert page.is_visible("[data-stop]")
    page.reload()
    wait_online(page)
    assert page.evaluate(client_js("c.streamingId !== null"))
    wait_settled(page, count + 2, timeout=30000)
    final = page.locator(".msg--assistant .msg-body").last.text_content()
    assert final == SLOW_TEXT
    shot(page, "desktop-after-reload")
    assert page.errors == []


def test_a_dropped_socket_reconnects_and_the_turn_finishes(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_page(browser, server, f"/play/{server['live']}/", PHONE)
    wait_online(page)
    count = held(page)
    page.fill("[data-input]", "And then?")
    page.click("[data-send]")
    page.wait_for_function(client_js("c.streamText.length > 30"))
    page.evaluate(client_js("c.ws.close()"))
    page.wait_for_selector(".conn[data-state=reconnecting]", timeout=5000)
    shot(page, "phone-reconnecting")
    wait_online(page)
    wait_settled(page, count + 2, timeout=30000)
    assert page.locator(".msg--assistant .msg-body").last.text_content() == SLOW_TEXT
    assert page.errors == []


def test_audio_follows_the_playlist_and_conditional_bgm(
    browser: Any, server: dict[str, Any]
) -> None:
    page = open_page(browser, server, f"/play/{server['fresh']}/", DESKTOP)
    wait_online(page)
    assert page.evaluate(client_js("c.audio.snapshot().bgm")) == "bgm-road"
    send(page, "I walk")
    assert page.evaluate(client_js("c.audio.snapshot().bgm")) == "bgm-road"
    send(page, "I walk on")  # steps reaches 2: the conditional BGM takes over
    # The state frame follows message_done: the music changes when it lands, not before.
    page.wait_for_function(client_js("c.audio.snapshot().rule !== null"), timeout=20_000)
    snapshot = page.evaluate(client_js("c.audio.snapshot()"))
    assert (snapshot["bgm"], snapshot["rule"]) == ("bgm-tension", "far-along")
    page.eval_on_selector(
        '[data-volume="bgm"]',
        "e => { e.value = '0.25'; e.dispatchEvent(new Event('input', {bubbles: true})); }",
    )
    page.reload()
    wait_online(page)
    assert page.eval_on_selector('[data-volume="bgm"]', "e => e.value") == "0.25"
    assert page.evaluate(client_js("c.audio.snapshot().volumes.bgm")) == 0.25
    assert page.errors == []


def test_studio_playtest_panel_plays_the_draft(browser: Any, server: dict[str, Any]) -> None:
    page = open_page(browser, server, f"/studio/w/{server['world']}/", DESKTOP)
    page.wait_for_selector("[data-playtest-reset]", timeout=10000)
    page.check('#playtest-panel input[name="mode"]')
    page.click("[data-playtest-reset]")
    page.wait_for_selector("#playtest-panel [data-play-root]", timeout=10000)
    wait_online(page)
    page.wait_for_selector(".inspector-list", timeout=10000)
    send(page, "I test the draft")
    page.wait_for_function(
        "document.querySelector('.inspector-list').textContent.includes('\"steps\": 1')",
        timeout=10000,
    )
    page.locator("#playtest").scroll_into_view_if_needed()
    shot(page, "desktop-studio-playtest")
    page.evaluate(client_js("(window.oldClient = c, true)"))
    page.click("[data-playtest-reset]")  # a fresh playtest; the old socket must close
    page.wait_for_function("window.oldClient.destroyed === true", timeout=10000)
    wait_online(page)
    assert held(page) == 1
    assert page.errors == []


def test_custom_ui_runs_sandboxed_and_talks_by_rpc(browser: Any, server: dict[str, Any]) -> None:
    page = open_page(browser, server, f"/play/{server['ui']}/", DESKTOP)
    wait_online(page)
    iframe = page.wait_for_selector(".play-custom iframe", timeout=10000)
    assert iframe.get_attribute("sandbox") == "allow-scripts"
    ui = page.frame_locator(".play-custom iframe")
    ui.locator("#hp").wait_for(timeout=10000)
    assert ui.locator("#hp").text_content() == "Steps: 0"
    assert ui.locator("#badge").text_content() == "The Salt Road (with a UI)"
    count = held(page)
    ui.locator("#go").click()
    wait_settled(page, count + 2)
    page.wait_for_function("document.querySelector('.play-custom iframe') && true", timeout=5000)
    ui.locator("#hp", has_text="Steps: 1").wait_for(timeout=5000)
    assert ui.locator(".fy-msg--user").last.text_content() == "I march on"
    ui.locator("#toast").click()
    page.wait_for_selector(".toast--achievement:has-text('Hello from the UI')", timeout=5000)
    shot(page, "desktop-custom-ui")

    # eval and new Function are refused by the CSP (DevTools' own evaluate is exempt, so the
    # world's code probes them itself).
    assert ui.locator("#probe").text_content() == "EvalError EvalError"
    frame = next(f for f in page.frames if f != page.main_frame)
    probes = frame.evaluate(
        """async () => {
          const attempt = (fn) => { try { return String(fn()); } catch (e) { return e.name; } };
          // fetch is seed 004's shim: /api/… calls off its list answer 403 from the host page,
          // anything else is refused in the frame; neither reaches the network.
          const settle = (p) => p.then((r) => r.status, (e) => e.name);
          return {
            parent: typeof window.parent,
            fetch: await settle(fetch('/api/health')),
            fetchOut: await settle(fetch('https://example.com/x')),
            cookie: attempt(() => document.cookie),
            storage: attempt(() => window.localStorage.length),
            origin: window.origin,
          };
        }"""
    )
    assert probes == {
        "parent": "undefined",
        "fetch": 403,
        "fetchOut": "TypeError",
        "cookie": "SecurityError",
        "storage": "SecurityError",
        "origin": "null",
    }
    url = page.url
    frame.evaluate(
        """() => {
          const send = (id, method, args) =>
            window.top.postMessage({fabula: 'ui', id, method, args}, '*');
          send(9, 'navigate', ['https://evil.example/']);
          send(10, 'sendMessage', [42]);
          send(11, 'constructor', []);
        }"""
    )
    page.wait_for_timeout(500)
    assert page.url == url
    assert held(page) == count + 2
    page.click("[data-toggle-ui]")
    assert page.is_visible("[data-chat]")
    assert page.errors == []


def test_stop_keeps_what_was_written(browser: Any, server: dict[str, Any]) -> None:
    page = open_page(browser, server, f"/play/{server['live']}/", PHONE)
    wait_online(page)
    count = held(page)
    page.fill("[data-input]", "Speak slowly")
    page.click("[data-send]")
    page.wait_for_function(client_js("c.streamText.length > 40"))
    page.click("[data-stop]")
    wait_settled(page, count + 2)
    last = page.evaluate(client_js("c.messages[c.messages.length - 1]"))
    assert last["stopped"] is True
    assert SLOW_TEXT.startswith(last["content"])
    assert 0 < len(last["content"]) < len(SLOW_TEXT)
    assert page.is_visible(".msg:last-child .msg-note")
    assert page.is_visible("[data-send]")
    assert page.errors == []


def test_checkpoints_edit_and_branch(browser: Any, server: dict[str, Any]) -> None:
    page = open_page(browser, server, f"/play/{server['fresh']}/", DESKTOP)
    wait_online(page)
    page.fill("[data-checkpoint-form] input[name=name]", "Before the storm")
    page.click("[data-checkpoint-form] button")
    page.wait_for_selector(".checkpoint-name:has-text('Before the storm')", timeout=5000)
    count = held(page)
    users = page.locator(".msg--user").count()
    send(page, "I open the gate")
    user = page.locator(".msg--user").last
    user.hover()
    user.locator('[data-action="edit"]').click()
    page.fill(".msg-edit textarea", "I open the *iron* gate")
    page.click(".msg-edit button[type=submit]")
    page.wait_for_selector(".msg--user em:has-text('iron')", timeout=5000)
    page.click(".checkpoint button:has-text('Restore')")
    wait_settled(page, count)
    assert page.locator(".msg--user").count() == users
    assert page.locator(".msg--user em").count() == 0
    last = page.locator(".msg").last
    last.hover()
    last.locator('[data-action="branch"]').click()
    page.wait_for_url(lambda url: server["fresh"] not in url, timeout=10000)
    wait_online(page)
    assert page.text_content(".play-title h1").endswith("(branch)")
    assert page.errors == []


def test_guest_preview_plays_without_an_account(browser: Any, server: dict[str, Any]) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{server['base']}/play/preview/{server['version']}/")
    page.click("#start-preview")
    wait_online(page)
    assert "salt flats" in page.text_content(".msg-body")
    assert page.locator("[data-toggle-side]").is_visible()
    assert page.locator(".persona-form").count() == 0  # guests have no personas
    shot(page, "phone-guest-preview")
    context.close()
