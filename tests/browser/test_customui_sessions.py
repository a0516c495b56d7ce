"""Session management, model choice and the model picker of a world's UI, in Chromium (issue 15).

The conformance world's buttons call listSessions, createSession, deleteSession,
getBranchContext, getModels, setModel, pinModel and setPreferredProvider, and render a
``ModelTrigger``; each effect is read in the server's database (play.ui_sessions,
play.ui_models). The site offers two models here (FABULA_MODEL, FABULA_SITE_MODELS).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import CHROMIUM
from tests.browser.servers import CONFORMANCE_SEEDS, AppServers, open_conformance_page
from tests.browser.test_customui_api import click, until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"needs {CHROMIUM}"),
    pytest.mark.timeout(300),
]

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    models = {"FABULA_MODEL": "dune-small", "FABULA_SITE_MODELS": "dune-large"}
    return app_servers.get(*CONFORMANCE_SEEDS, **models)


@pytest.fixture
def ui(browser: Any, server: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    page, frame = open_conformance_page(browser, server)
    yield page, frame
    page.context.close()


def query(server: dict[str, Any], sql: str, *args: Any) -> list[Any]:
    with sqlite3.connect(server["db"]) as db:
        return db.execute(sql, args).fetchall()


def session_row(server: dict[str, Any], session_id: str) -> list[Any]:
    sql = "select model, world_version_id, owner_id from play_session where id = ?"
    return query(server, sql, uuid.UUID(session_id).hex)


def model_of(server: dict[str, Any]) -> str:
    return str(session_row(server, server["session"])[0][0])


def test_session_members_create_list_and_delete_on_the_server(ui, server):
    _page, frame = ui
    created = click(frame, "create-session", "-")
    assert not created.startswith("ERR")
    (row,) = session_row(server, created)
    assert row[1:] == session_row(server, server["session"])[0][1:]  # same version, same owner
    listed = click(frame, "list-sessions", created).split(",")
    assert created in listed and server["session"] in listed
    assert "ERR worldId: Only this world's sessions" in click(frame, "list-foreign", "ERR")
    frame.locator("#session-ref").fill(created)
    assert "ok" in click(frame, "delete-session")
    assert until(lambda: not session_row(server, created))
    assert session_row(server, server["session"])  # the current one is untouched
    context = json.loads(click(frame, "branch-context", "sessionId"))
    assert context == {
        "sessionId": server["session"],
        "parentSessionId": None,
        "branchedFromMessageId": None,
    }
    assert json.loads(click(frame, "current-user", "alice"))["name"] == "alice"


def test_model_members_take_effect_on_the_server(ui, server):
    _page, frame = ui
    offered = json.loads(click(frame, "models", "models"))
    assert [m["id"] for m in offered["models"]] == ["dune-large", "dune-small"]
    assert "ok" in click(frame, "set-model")
    assert until(lambda: model_of(server) == "dune-large")
    frame.locator("#info", has_text='"model":"dune-large"').wait_for(timeout=5000)
    refused = click(frame, "set-bad-model", "ERR")
    assert "The model 'gpt-expensive' is not one you may use here." in refused
    assert model_of(server) == "dune-large"
    click(frame, "pin-model", "ok")
    pins = until(lambda: query(server, "select pinned from play_modelpins"))
    assert json.loads(pins[0][0]) == ["dune-small"]
    answer = json.loads(click(frame, "provider-private", "ok"))
    assert answer["ok"] is False and "My model" in answer["error"]


def test_model_trigger_opens_a_picker_that_sets_the_model(ui, server):
    _page, frame = ui
    trigger = frame.locator("#model-bar .fy-model-trigger")
    trigger.click()
    option = frame.locator(".fy-model-modal .fy-model-option[data-model='dune-small']")
    option.click()
    assert until(lambda: model_of(server) == "dune-small")
    frame.locator(".fy-model-modal").wait_for(state="detached", timeout=5000)
    trigger.filter(has_text="dune-small").wait_for(timeout=5000)


def test_restart_goes_to_a_new_session_and_deleting_the_current_one_leaves_it(ui, server):
    page, frame = ui
    frame.locator("#b-restart").click()
    page.wait_for_url(lambda url: server["session"] not in url and "/play/" in url)
    created = page.url.rstrip("/").rsplit("/", 1)[-1]
    (row,) = session_row(server, created)
    assert row[1:] == session_row(server, server["session"])[0][1:]
    frame = page.frame_locator(".play-custom iframe")
    frame.locator("#entries", has_text="map-note").wait_for(timeout=15000)
    frame.locator("#session-ref").fill(created)
    frame.locator("#b-delete-session").click()
    page.wait_for_url(lambda url: url.rstrip("/").endswith("/play"))
    assert not session_row(server, created)
    assert session_row(server, server["session"])
