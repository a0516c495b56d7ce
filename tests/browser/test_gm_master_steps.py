"""A slow master in real Chromium (issue 37 §1–2): while the loopback model server keeps the
master waiting, the reply being written shows what the master is doing, in the player's words
and never a tool's name; the narration then replaces it. Stop ends a waiting master at once."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, shot
from tests.browser.pages import held, wait_settled
from tests.browser.test_gm_master import CLOSE, LOOKUP, SAYS, model, server, start
from tests.browser.test_gm_play import last_reply, open_gallery
from tests.support.model_server import Fault, ModelServer, Reply

pytestmark = [pytest.mark.timeout(240)]
__all__ = ["model", "server"]  # the module's fixtures, shared with test_gm_master's setup


def test_the_reply_being_written_shows_the_masters_step_until_its_narration(
    browser: Any, server: dict[str, Any], model: ModelServer
) -> None:
    waiting = Reply(text="", tool_calls=(CLOSE,))
    stalled = Fault("stall_before_first_token", seconds=3, reply=waiting)
    model.script([Reply(text="", tool_calls=(LOOKUP,)), stalled])
    page = open_gallery(browser, server, DESKTOP)
    start(page, "live")
    count = held(page)
    page.fill("[data-input]", "I hum an old song")
    page.click("[data-send]")
    status = page.locator(".msg--assistant [data-gm-step]").last
    status.wait_for(timeout=10000)
    assert status.text_content() in ("The game master is thinking…", "Consulting a rule…")
    shot(page, "gm-master-status")
    wait_settled(page, count + 2)
    assert last_reply(page) == SAYS
    assert page.locator("[data-gm-step]").count() == 0
    assert "lookup_rule" not in str(page.text_content("body"))
    assert page.errors == []


def test_stop_ends_a_waiting_master_and_the_next_action_plays(
    browser: Any, server: dict[str, Any], model: ModelServer
) -> None:
    model.script([Fault("stall_before_first_token", seconds=60)])
    page = open_gallery(browser, server, DESKTOP)
    start(page, "live")
    count = held(page)
    page.fill("[data-input]", "I hum an old song")
    page.click("[data-send]")
    page.locator(".msg--assistant [data-gm-step]").last.wait_for(timeout=10000)
    page.click("[data-stop]")
    wait_settled(page, count + 2)
    model.script([Reply(text="", tool_calls=(CLOSE,))])
    page.fill("[data-input]", "I hum an old song")
    page.click("[data-send]")
    wait_settled(page, count + 4)
    assert last_reply(page) == SAYS
    assert page.errors == []
