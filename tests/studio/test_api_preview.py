"""API: the live prompt preview and the directive tester, checked against `python -m engine`."""

from __future__ import annotations

import io
import json

import pytest

from engine.cli import main as engine_cli
from studio.models import Entry
from studio.publishing import publish_world
from studio.worlds import create_item, export_world_json

CHAT = [
    {"role": "user", "content": "We walk toward the dune."},
    {"role": "assistant", "content": "The sand hisses."},
    {"role": "user", "content": "I climb the dune."},
]
CONTEXT = {"turn": 3, "now": "2026-05-13T14:30:00+00:00", "seed": 9, "user": "Ash"}


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def dunes(world):
    create_item(
        world,
        Entry,
        {"id": "dunes", "section": "chat-history", "keywords": ["dune"], "content": "Dunes move."},
    )
    return world


def run_cli(tmp_path, capsys, world, command, *args, stdin=None, monkeypatch=None, **files):
    paths = {"world": export_world_json(world), **files}
    argv = [command]
    for name, content in paths.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(content))
        argv += [f"--{name}", str(path)]
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    capsys.readouterr()
    assert engine_cli(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_preview_matches_the_engine_cli(as_alice, dunes, tmp_path, capsys):
    state = {"health": 15}
    body = {"chat": CHAT, "state": state, "context": CONTEXT}
    response = as_alice.post(f"/api/worlds/{dunes.pk}/preview", body, "application/json")
    assert response.status_code == 200
    preview = response.json()
    cli = run_cli(tmp_path, capsys, dunes, "prompt", chat=CHAT, state=state, context=CONTEXT)
    assert {k: preview[k] for k in ("messages", "breakpoint", "fired")} == cli
    assert [f["entry"] for f in preview["fired"]] == ["narrator", "dunes"]


def test_preview_shows_blocks_and_tokens(as_alice, dunes):
    body = {"chat": CHAT, "state": {"health": 15}}
    preview = as_alice.post(f"/api/worlds/{dunes.pk}/preview", body, "application/json").json()
    assert preview["tokens"] == sum(b["tokens"] for b in preview["blocks"])
    assert [b["entry_id"] for b in preview["blocks"] if b["entry_id"]] == ["narrator", "dunes"]
    assert preview["messages"][-1] == {
        "role": "system",
        "content": "<current-state>\nhealth: 15\n</current-state>",
    }


def test_preview_accepts_a_saved_session_state(as_alice, world):
    state = {"values": {"health": 42}, "turn": 7}
    body = {"chat": CHAT, "state": state}
    preview = as_alice.post(f"/api/worlds/{world.pk}/preview", body, "application/json").json()
    assert preview["messages"][-1]["content"] == "<current-state>\nhealth: 42\n</current-state>"


def test_preview_rejects_bad_input(as_alice, world):
    response = as_alice.post(f"/api/worlds/{world.pk}/preview", {"chat": "hi"}, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["chat: input should be a valid list"]


def test_preview_checks_access(client, bob, charlie, world):
    url = f"/api/worlds/{world.pk}/preview"
    assert client.post(url, {}, "application/json").status_code == 401
    client.force_login(charlie)
    assert client.post(url, {}, "application/json").status_code == 404
    publish_world(world)
    client.force_login(bob)
    assert client.post(url, {}, "application/json").status_code == 403
    assert client.get(url).status_code == 405


def test_parse_matches_the_engine_cli(as_alice, world, tmp_path, capsys, monkeypatch):
    text = "You stumble. [health: -30] [mood: set 'x'] [health: +]"
    body = {"text": text, "state": {"health": 80}}
    response = as_alice.post(f"/api/worlds/{world.pk}/parse", body, "application/json")
    assert response.status_code == 200
    parsed = response.json()
    assert parsed["state"] == {"health": 50}
    assert parsed["text"].startswith("You stumble.")
    assert parsed["changes"] == [{"variableId": "health", "path": [], "old": 80, "new": 50}]
    cli = run_cli(
        tmp_path, capsys, world, "parse", stdin=text, monkeypatch=monkeypatch, state={"health": 80}
    )
    assert {k: parsed[k] for k in cli} == cli


def test_parse_needs_text(as_alice, world):
    response = as_alice.post(f"/api/worlds/{world.pk}/parse", {"state": {}}, "application/json")
    assert response.status_code == 422
    assert response.json()["errors"] == ["text: field required"]


def test_parse_checks_access(client, charlie, world):
    url = f"/api/worlds/{world.pk}/parse"
    assert client.post(url, {"text": "x"}, "application/json").status_code == 401
    client.force_login(charlie)
    assert client.post(url, {"text": "x"}, "application/json").status_code == 404
