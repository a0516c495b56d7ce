"""Record → publish → replay, in real Chromium (issue "Game master II" §6, §8).

Brackenford's creator plays a route with the master, once on the Anthropic and once on the OpenAI
protocol (the loopback model server scripts its tool calls through both SDKs), recorded as a
demo: a click on the board, a turn with ``lookup_rule`` then ``log_event``, a risky climb and its
roll, a walk into the store, a purchase the engine refuses and one it makes. They download the
demo, publish the session as the world's demo from the play page, take it down and publish the
downloaded file from the studio's Demo panel. Alice, a player, then presses "Watch the demo" in
the gallery and plays it step by step: the same words, the same dice, not one model call, no
cost, and no tool traffic shown to her.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, shot
from tests.browser.pages import client_js, held, signed_in_page, wait_settled
from tests.browser.servers import AppServers
from tests.browser.test_gm_play import last_reply
from tests.support.model_server import ModelServer, Reply

pytestmark = [pytest.mark.timeout(300)]

HUM = "You hum; Hilda smiles at the tune."
HOLD = "The old stones hold your weight."
NO_CHALICE = "Osric shakes his head: he sells no chalice."
BREAD = "Osric wraps a warm loaf for you."
STEPS = 7
LOOKUP = {"name": "lookup_rule", "arguments": {"topic": "death-saves"}}
CLIMB = {  # only the master asks for a check (issue 33 §2)
    "name": "request_skill_check",
    "arguments": {"check": "athletics", "dc": 15, "purpose": "climb"},
}
EYE = "You eye the old stones of the well."


def close(narration: str) -> dict[str, Any]:
    return {"name": "log_event", "arguments": {"narration": narration, "suggestions": ["Wait"]}}


@pytest.fixture(scope="module")
def model() -> Iterator[ModelServer]:
    with ModelServer() as server:
        yield server


@pytest.fixture(scope="module", params=["anthropic", "openai"])
def server(
    request: pytest.FixtureRequest, app_servers: AppServers, model: ModelServer
) -> Iterator[dict[str, Any]]:
    """Brackenford with the site's model on one protocol or the other, each its own database."""
    protocol = request.param
    site = {
        "anthropic": (model.anthropic_url, "claude-test", "sk-ant-test"),
        "openai": (model.openai_url, "test-model", "sk-test"),
    }[protocol]
    info = app_servers.get(
        "tests/browser/seed_demo_loop.py",
        FABULA_PROVIDER=protocol,
        FABULA_BASE_URL=site[0],
        FABULA_MODEL=site[1],
        FABULA_API_KEY=site[2],
        demo=True,
    )
    yield info
    app_servers.release(info)  # it talks to this module's model server


def open_as(browser: Any, server: dict[str, Any], who: str, path: str = "/") -> Any:
    page = signed_in_page(
        browser, server, who=who, console=None, viewport=DESKTOP, accept_downloads=True
    )
    errors: list[str] = page.errors
    page.on(
        "console", lambda m: errors.append(f"{m.text} {m.location}") if m.type == "error" else None
    )
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(server["base"] + path)
    return page


def brackenford(page: Any) -> Any:
    return page.locator("article.card", has_text="Brackenford")


def replies(page: Any) -> list[str]:
    return [str(t).strip() for t in page.locator(".msg--assistant .msg-body").all_text_contents()]


def rolls(page: Any) -> list[str]:
    return [
        str(t).strip()
        for t in page.locator("[data-gm-rolls] .play-gm-roll-line").all_text_contents()
    ]


def act(page: Any, grows: int, click: str = "", text: str = "") -> None:
    """One step of the route: a click or a typed action, then wait until the turn is over."""
    count = held(page)
    if text:
        page.fill("[data-input]", text)
        click = "[data-send]"
    page.wait_for_selector(click + ":visible")
    page.click(click)
    wait_settled(page, count + grows)


def record_route(page: Any) -> None:
    brackenford(page).locator("a", has_text="Play").click()
    page.select_option("select[name=character]", "ren")
    page.select_option("select[name=mode]", "record")
    page.click(".start-form button[type=submit]")
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)
    assert "recording" in str(page.text_content("[data-narrator-label]"))
    act(page, 1, click='[data-gm-click="location:square"]')  # an engine move: no message
    act(page, 2, text="I hum an old song")  # lookup_rule, then log_event
    act(page, 2, text="climb the well")  # the master asks for a roll
    act(page, 1, click="[data-gm-roll]")  # the dice, then the master's words
    act(page, 1, click='[data-gm-click="location:store"]')
    # Haggling is the master's (a plain "buy" is an engine move since issue 33 §1).
    act(page, 2, text="I haggle for the silver chalice")  # a tool that fails, told again
    act(page, 2, text="I haggle for a loaf of bread")  # a deal through the buy tool


def test_a_recorded_route_is_published_and_watched_as_a_replay(
    browser: Any, server: dict[str, Any], model: ModelServer, tmp_path: Path
) -> None:
    model.reset()  # the other protocol's run shares this server
    model.script(
        [
            Reply(text="", tool_calls=(LOOKUP,)),
            Reply(text="", tool_calls=(close(HUM),)),
            Reply(text="", tool_calls=(CLIMB,)),
            Reply(text="", tool_calls=(close(EYE),)),
            Reply(text="", tool_calls=(close(HOLD),)),
            Reply(text="", tool_calls=({"name": "buy_item", "arguments": {"item": "chalice"}},)),
            Reply(text="", tool_calls=(close(NO_CHALICE),)),
            Reply(text="", tool_calls=({"name": "buy_item", "arguments": {"item": "bread"}},)),
            Reply(text="", tool_calls=(close(BREAD),)),
        ]
    )
    creator = open_as(browser, server, "creator")
    record_route(creator)
    assert {HUM, NO_CHALICE, BREAD} <= set(replies(creator))
    # The creator, playing their own world, sees the tools: the chalice refused, the bread bought.
    refused = creator.locator(".msg-trace li.trace-refused .trace-name").all_text_contents()
    done = creator.locator(".msg-trace li.trace-ok .trace-name").all_text_contents()
    assert refused == ["buy_item"] and done.count("buy_item") == 1 and "lookup_rule" in done
    recorded, recorded_rolls = replies(creator), rolls(creator)
    asked = len(model.requests)
    assert asked >= 2

    with creator.expect_download() as download:
        creator.click("[data-demo-download]")
    demo_file = tmp_path / "brackenford-demo.json"
    download.value.save_as(demo_file)
    creator.click("[data-demo-publish]")
    creator.wait_for_selector(".messages :text('Published as this world')")

    # The studio's Demo panel: take it down, then publish the downloaded file.
    creator.goto(server["base"] + "/studio/")
    creator.locator("article.card", has_text="Brackenford").locator("a").first.click()
    panel = creator.locator("[data-world-demo]")
    assert f"{STEPS} steps" in str(panel.text_content())
    creator.once("dialog", lambda dialog: dialog.accept())
    panel.locator("button", has_text="Remove the demo").click()
    creator.wait_for_selector("[data-world-demo] :text('No demo yet')")
    creator.set_input_files("#demo-file", str(demo_file))
    creator.locator("[data-world-demo] button", has_text="Publish this demo").click()
    creator.wait_for_selector(f"[data-world-demo] :text('{STEPS} steps')")
    shot(creator, "demo-studio-panel")
    assert creator.errors == []

    alice = open_as(browser, server, "alice")
    brackenford(alice).locator("[data-watch-demo]").click()
    alice.wait_for_selector(".conn[data-state=online]", timeout=15000)
    assert "Replay" in str(alice.text_content("[data-narrator-label]"))
    bar = alice.locator("[data-demo-bar]")
    for number in range(1, STEPS + 1):
        assert f"step {number} of {STEPS}" in str(bar.text_content())
        count = held(alice)
        alice.click("[data-demo-next]")
        alice.wait_for_function(
            client_js(f"c.messages.length > {count} && c.streamingId === null && !c.demoWaiting"),
            timeout=20000,
        )
    wait_settled(alice, len(recorded) + 4)  # the player's four messages are shown too
    assert "The demo is over" in str(bar.text_content())
    assert alice.is_hidden("[data-demo-next]")
    assert replies(alice) == recorded
    assert rolls(alice) == recorded_rolls
    assert last_reply(alice) == BREAD
    assert len(model.requests) == asked  # a replay calls no model
    assert alice.locator(".msg-trace").count() == 0  # nor shows a player the tools
    shot(alice, "demo-replayed")
    assert alice.errors == []
