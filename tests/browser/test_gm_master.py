"""Brackenford's tool-calling master in real Chromium (issue "Game master II" §8).

The site provider speaks the OpenAI protocol to the loopback model server, which scripts the
master's turn: a ``lookup_rule`` call, then ``log_event``. The player sees the narration stream
in, the suggestions and the cost, never the tool traffic (only the world's creator gets "what the
engine did"; Alice plays the demo, which is not hers). In offline mode the same action gets the
offline master's plain closure and its suggestions.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, shot
from tests.browser.pages import held, wait_settled
from tests.browser.servers import AppServers
from tests.browser.test_gm_play import last_reply, open_gallery
from tests.support.model_server import ModelServer, Reply

pytestmark = [pytest.mark.timeout(240)]

SAYS = "You hum; Hilda smiles at the tune."
LOOKUP = {"name": "lookup_rule", "arguments": {"topic": "death-saves"}}
CLOSE = {
    "name": "log_event",
    "arguments": {"narration": SAYS, "suggestions": ["Hum louder", "Ask for a drink"]},
}


@pytest.fixture(scope="module")
def model() -> Iterator[ModelServer]:
    with ModelServer() as server:
        yield server


@pytest.fixture(scope="module")
def server(app_servers: AppServers, model: ModelServer) -> Iterator[dict[str, Any]]:
    """Brackenford served by daphne with the site provider on the loopback model server."""
    info = app_servers.get(
        "tests/browser/seed_gm.py",
        FABULA_PROVIDER="openai",
        FABULA_BASE_URL=model.openai_url,
        FABULA_MODEL="test-model",
        FABULA_API_KEY="sk-test",
        demo=True,
    )
    yield info
    app_servers.release(info)  # it talks to this module's model server


def start(page: Any, mode: str) -> None:
    card = page.locator("article.card", has_text="Brackenford")
    card.locator("a", has_text="Play").click()
    page.select_option("select[name=character]", "ren")
    page.select_option("select[name=mode]", mode)
    page.click(".start-form button[type=submit]")
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)


def say(page: Any, text: str) -> None:
    count = held(page)
    page.fill("[data-input]", text)
    page.click("[data-send]")
    wait_settled(page, count + 2)


def test_the_master_turn_streams_its_narration_and_suggestions_never_its_tools(
    browser: Any, server: dict[str, Any], model: ModelServer
) -> None:
    model.script([Reply(text="", tool_calls=(LOOKUP,)), Reply(text="", tool_calls=(CLOSE,))])
    page = open_gallery(browser, server, DESKTOP)
    start(page, "live")
    say(page, "I hum an old song")
    assert last_reply(page) == SAYS
    assert len(model.requests) == 2  # the tool's result went back, then log_event closed
    page.wait_for_selector(".choice:has-text('Hum louder')")
    assert page.locator(".choice", has_text="Ask for a drink").count() == 1
    reply = page.locator(".msg--assistant").last
    assert reply.locator(".msg-cost").is_visible()
    assert reply.locator(".msg-trace").count() == 0  # the demo is not Alice's world
    body = str(page.text_content("body"))
    assert "lookup_rule" not in body and "log_event" not in body and "death-saves" not in body
    shot(page, "gm-master-turn")
    assert page.errors == []


def test_offline_the_master_answers_with_the_plain_closure(
    browser: Any, server: dict[str, Any], model: ModelServer
) -> None:
    asked = len(model.requests)
    page = open_gallery(browser, server, DESKTOP)
    start(page, "offline")
    say(page, "I hum an old song")
    assert last_reply(page) == "You do as you said: “I hum an old song”. Nothing changes."
    assert page.locator(".choice").count() >= 2
    assert len(model.requests) == asked
    assert page.errors == []
