"""My model and what a story costs, in real Chromium against daphne (issue 16 §5).

Alice points "My model" at the loopback model server (the operator allows private model hosts,
as for a local Ollama), tests the connection, lists the models it offers and picks a priced one;
then she plays the Lantern demo on her key and sees each reply's cost with its cache reads and
the story's running total in the header.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, shot
from tests.browser.pages import held, wait_settled
from tests.browser.servers import AppServers
from tests.browser.test_gm_play import open_gallery
from tests.support.model_server import ModelServer

pytestmark = [pytest.mark.timeout(240)]

KEY = "sk-alice-browser-key-4321"
PICKED = "gpt-4o-mini"  # the default price table knows it: replies cost something


@pytest.fixture(scope="module")
def model() -> Iterator[ModelServer]:
    with ModelServer() as server:
        server.models = ["gpt-4.1-nano", PICKED, "test-model"]
        yield server


@pytest.fixture(scope="module")
def server(app_servers: AppServers, model: ModelServer) -> Iterator[dict[str, Any]]:
    """The demos served by daphne; the site's key is on the model server too."""
    info = app_servers.get(
        "tests/browser/seed_gm.py",
        FABULA_PROVIDER="openai",
        FABULA_BASE_URL=model.openai_url,
        FABULA_MODEL="test-model",
        FABULA_API_KEY="sk-site",
        FABULA_ALLOW_PRIVATE_MODEL_HOSTS="true",
        demo=True,
    )
    yield info
    app_servers.release(info)  # it talks to this module's model server


def save_own_provider(page: Any, site: str, base_url: str) -> None:
    page.goto(site + "/play/provider/")
    page.select_option("select[name=provider]", "openai")
    page.fill("input[name=base_url]", base_url)
    page.fill("input[name=model]", "test-model")
    page.fill("input[name=api_key]", KEY)
    page.click("#provider-form button[type=submit]")
    page.wait_for_selector(".key-status code:has-text('sk-…4321')")


def say(page: Any, text: str) -> None:
    count = held(page)
    page.fill("[data-input]", text)
    page.click("[data-send]")
    wait_settled(page, count + 2)


def cached_in(text: str) -> int:
    found = re.search(r"(\d+) cached", text)
    assert found, text
    return int(found.group(1))


def test_my_model_is_tested_lists_models_and_a_pick_plays_with_its_cost(
    browser: Any, server: dict[str, Any], model: ModelServer
) -> None:
    page = open_gallery(browser, server, DESKTOP)
    save_own_provider(page, server["base"], model.openai_url)
    assert KEY not in str(page.content())

    page.click("[data-provider-test]")
    result = page.wait_for_selector("[data-check-result]:has-text('Connected')")
    assert result.text_content().startswith("Connected: test-model answered")
    assert model.requests[-1].headers["authorization"] == f"Bearer {KEY}"

    page.click("[data-provider-models]")
    page.wait_for_selector("select[data-model-list]")
    options = page.locator("select[data-model-list] option").all_text_contents()
    assert options == ["gpt-4.1-nano", PICKED, "test-model"]
    page.select_option("select[data-model-list]", PICKED)
    page.click("[data-pick-model]")
    page.wait_for_selector(f"[data-provider-note]:has-text('Your model is now {PICKED}.')")
    assert page.input_value("#provider-form input[name=model]") == PICKED
    shot(page, "my-model-picked")

    page.goto(server["base"] + "/")
    page.locator("article.card", has_text="Lantern").locator("a", has_text="Play").click()
    page.select_option("select[name=mode]", "live")
    page.click(".start-form button[type=submit]")
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)
    assert page.text_content("[data-narrator-label]") == f"Live — {PICKED}"
    assert page.is_hidden("[data-session-cost]")  # nothing spent yet

    say(page, "I knock on the lantern-keeper's door")
    assert model.requests[-1].body["model"] == PICKED
    first = page.locator(".msg--assistant").last.locator(".msg-cost")
    assert first.is_visible()
    assert re.search(r"\d+ in · \d+ cached · \d+ out · \$0\.\d+", first.text_content())
    total = page.locator("[data-session-cost]")
    assert total.is_visible()
    assert re.fullmatch(r"Story: \$0\.\d+ · \d+ cached", total.text_content())
    first_total = total.text_content()

    say(page, "I wait for an answer")
    second = page.locator(".msg--assistant").last.locator(".msg-cost").text_content()
    assert cached_in(second) > 0  # the second prompt repeats the first one's prefix
    page.wait_for_function(
        "document.querySelector('[data-session-cost]').textContent !== " + json.dumps(first_total)
    )
    assert cached_in(total.text_content()) >= cached_in(second)
    shot(page, "story-cost")
    assert page.errors == []
