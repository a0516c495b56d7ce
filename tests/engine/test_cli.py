"""``python -m engine``: each command, run as other tools run it (a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

WORLD: dict[str, Any] = {
    "name": "龙之酒馆",
    "language": "en",
    "variables": [
        {"id": "health", "type": "number", "defaultValue": 100, "min": 0, "max": 100},
        {"id": "mood", "type": "string", "defaultValue": "calm"},
    ],
    "entries": [
        {"id": "narrator", "content": "You narrate {{char}} for {{user}}."},
        {"id": "tavern", "section": "chat-history", "keywords": ["tavern"], "content": "Ale."},
        {"id": "hello", "role": "greeting", "content": 'Welcome to the 酒馆. [mood: set "merry"]'},
    ],
    "audioTracks": [{"id": "bgm-tavern", "type": "bgm"}],
    "rules": [
        {
            "id": "hurt",
            "trigger": {
                "type": "variable-crossed",
                "variableId": "health",
                "direction": "drops-below",
                "threshold": 50,
            },
            "actions": [{"type": "notify-player", "style": "danger", "message": "重伤!"}],
        },
        {
            "id": "tick",
            "trigger": {"type": "every-turn"},
            "actions": [{"type": "notify-player", "message": "Time passes."}],
        },
    ],
}


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def run(*args: str, stdin: str = "") -> Done:
    done = subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=stdin.encode("utf-8"),
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    return Done(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


@pytest.fixture
def world_file(tmp_path: Path) -> str:
    return write(tmp_path / "world.json", WORLD)


# --- validate ---------------------------------------------------------------------------


def test_validate_prints_a_one_line_summary(world_file: str) -> None:
    done = run("validate", "--world", world_file)
    assert done.returncode == 0
    assert done.stdout == (
        "龙之酒馆: 3 entries, 2 variables, 2 rules, 0 reactions, 1 audio tracks\n"
    )


def test_validate_lists_every_error_with_its_path(tmp_path: Path) -> None:
    bad = {
        "name": "",
        "variables": [{"id": "user", "type": "number"}],
        "entries": [{"id": "Bad Id", "section": "nowhere"}],
    }
    path = write(tmp_path / "bad.json", bad)
    done = run("validate", "--world", path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "name: string should have at least 1 character",
        "entries[0].id: must be kebab-case (lowercase letters, digits and single hyphens)",
        "entries[0].section: must be one of system-presets, examples, chat-history, post-history",
        "variables[0].id: 'user' is a reserved word (audio, char, date, time, user)",
    ]
    assert done.stderr == f"{path}: invalid world (4 errors)\n"


def test_validate_a_missing_file(tmp_path: Path) -> None:
    path = str(tmp_path / "missing.json")
    done = run("validate", "--world", path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == f"error: {path}: cannot read file: No such file or directory\n"


def test_a_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"name": ', encoding="utf-8")
    done = run("parse", "--world", str(path))
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: {path}: invalid JSON: Expecting value at line 1")


def test_a_world_that_is_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path / "list.json", [1, 2])
    done = run("validate", "--world", path)
    assert done.returncode == 1
    assert done.stdout == "$: must be a JSON object, got list\n"


# --- parse ------------------------------------------------------------------------------


def test_parse_prints_text_state_audio_effects_and_skipped(world_file: str, tmp_path: Path) -> None:
    state = write(tmp_path / "state.json", {"health": 60})
    reply = '你被击中了。 [health: -25] [mood: set "grim"] [audio: bgm-tavern play] [mood: +1]'
    done = run("parse", "--world", world_file, "--state", state, stdin=reply)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert list(out) == ["text", "state", "audio", "effects", "skipped"]
    assert out["text"] == "你被击中了。"
    assert out["state"] == {"health": 35, "mood": "grim"}
    assert out["audio"] == [
        {"trackId": "bgm-tavern", "action": "play", "value": None, "chain": None}
    ]
    assert [e["variableId"] for e in out["effects"]] == ["health", "mood", "mood"]
    assert [s["reason"] for s in out["skipped"]] == ["add does not apply to string variable 'mood'"]
    assert "你被击中了" in done.stdout  # UTF-8, not \\u escapes


def test_parse_with_a_state_that_is_not_an_object(world_file: str, tmp_path: Path) -> None:
    state = write(tmp_path / "state.json", [1])
    done = run("parse", "--world", world_file, "--state", state, stdin="x")
    assert done.returncode == 1
    assert done.stderr == (
        f"error: {state}: state must be a JSON object mapping variable ids to values\n"
    )


def test_parse_with_an_invalid_world_names_the_file_and_the_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.json", {"name": "x", "rules": [{"id": "r", "trigger": {}}]})
    done = run("parse", "--world", path, stdin="x")
    assert done.returncode == 1
    assert done.stderr == (
        f"error: {path}: invalid world (1 errors):\n  rules[0].trigger: type is required\n"
    )


# --- expand -------------------------------------------------------------------------------


def test_expand_uses_state_and_context(world_file: str, tmp_path: Path) -> None:
    state = write(tmp_path / "state.json", {"health": 42})
    context = write(
        tmp_path / "context.json",
        {"turn": 7, "user": "Mei", "now": "2026-05-13T14:30:00+00:00", "seed": 1},
    )
    text = "{{user}} has {{health}} HP ({{mood}}) on turn {{turnCount}} at {{time}}. {{nope}}\n"
    done = run("expand", "--world", world_file, "--state", state, "--context", context, stdin=text)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Mei has 42 HP (calm) on turn 7 at 14:30. {{nope}}\n"


def test_expand_with_a_context_that_is_not_an_object(world_file: str, tmp_path: Path) -> None:
    context = write(tmp_path / "context.json", "soon")
    done = run("expand", "--world", world_file, "--context", context, stdin="x")
    assert done.returncode == 1
    assert done.stderr == f"error: {context}: context must be a JSON object\n"


# --- stream ---------------------------------------------------------------------------------


def test_stream_prints_each_emission_and_the_clean_text(world_file: str) -> None:
    chunks = ["The blade ", "bites [hea", "lth: -30] de", "ep.<think>hmm", "</think>"]
    done = run("stream", "--world", world_file, stdin=json.dumps(chunks))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out == {
        "deltas": ["The blade", " bites", " de", "ep."],
        "text": "The blade bites deep.",
    }


def test_stream_refuses_input_that_is_not_an_array_of_strings(world_file: str) -> None:
    done = run("stream", "--world", world_file, stdin='{"chunks": []}')
    assert done.returncode == 1
    assert done.stderr == "error: stdin: expected a JSON array of strings (the chunks)\n"


# --- prompt ---------------------------------------------------------------------------------


def test_prompt_prints_messages_breakpoint_and_fired_entries(
    world_file: str, tmp_path: Path
) -> None:
    chat = write(
        tmp_path / "chat.json",
        [
            {"role": "assistant", "content": "Welcome."},
            {"role": "user", "content": "I walk into the tavern"},
        ],
    )
    context = write(tmp_path / "context.json", {"user": "Mei", "char": "Old Wen"})
    done = run("prompt", "--world", world_file, "--chat", chat, "--context", context)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert list(out) == ["messages", "breakpoint", "fired"]
    assert out["messages"][0] == {"role": "system", "content": out["messages"][0]["content"]}
    assert out["messages"][0]["content"].startswith("You narrate Old Wen for Mei.")
    assert {"role": "user", "content": "I walk into the tavern"} in out["messages"]
    assert isinstance(out["breakpoint"], int) and 0 < out["breakpoint"] < len(out["messages"])
    assert [f["entry"] for f in out["fired"]] == ["narrator", "tavern"]
    assert "tavern" in out["fired"][1]["reason"]


def test_prompt_refuses_a_chat_with_an_unknown_role(world_file: str, tmp_path: Path) -> None:
    chat = write(tmp_path / "chat.json", [{"role": "narrator", "content": "hi"}])
    done = run("prompt", "--world", world_file, "--chat", chat)
    assert done.returncode == 1
    assert done.stderr == (
        f"error: {chat}: chat must be a JSON array of "
        "{role: user|assistant, content: string} (item 0)\n"
    )


# --- play ---------------------------------------------------------------------------------


def test_play_shows_narration_changes_and_notifications(world_file: str) -> None:
    done = run(
        "play",
        "--world",
        world_file,
        "--seed",
        "1",
        stdin="I order an ale\n/state\n/quit\nignored\n",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "— 龙之酒馆 — (type /quit to leave, /state to see the state)"
    assert "Welcome to the 酒馆." in lines
    assert '  * mood: "calm" → "merry"' in lines
    assert "You order an ale. Nothing changes." in lines
    assert "  [info] Time passes." in lines
    assert '  mood = "merry"' in lines
    assert "  (turn 1)" in lines
    assert not any("ignored" in line for line in lines)


def test_play_ends_at_end_of_input(world_file: str) -> None:
    done = run("play", "--world", world_file, stdin="I wait\n")
    assert done.returncode == 0, done.stderr
    assert "You wait. Nothing changes." in done.stdout.splitlines()


def test_a_missing_world_option_is_a_usage_error() -> None:
    done = run("parse")
    assert done.returncode == 1
    assert "--world" in done.stderr
