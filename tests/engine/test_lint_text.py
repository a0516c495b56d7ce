"""The linter's checks on typed text (issue 35 §1, §3): ignored keywords and unknown macros."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from engine.lint import lint_source


def world(*entries: dict[str, Any], **extra: Any) -> dict[str, Any]:
    variables = [{"id": "health", "type": "number", "defaultValue": 5, "min": 0, "max": 10}]
    return {"name": "Lint Lab", "entries": list(entries), "variables": variables, **extra}


def found(data: dict[str, Any], code: str) -> list[tuple[str, str, str]]:
    return [(f.severity, f.path, f.message) for f in lint_source(data) if f.code == code]


GOLD_LORE = {
    "id": "gold-lore",
    "name": "Gold lore",
    "section": "system-presets",
    "keywords": ["ferryman", "Cob"],
    "content": "The ferryman wants {{health}} coins.",
}


def test_keywords_in_a_section_that_ignores_them_are_warned_about():
    assert found(world(GOLD_LORE), "keywords-ignored") == [
        (
            "warning",
            "entries[0].section",
            "the keywords ferryman, Cob are ignored in the system-presets section, which is sent "
            "on every turn: move the entry to chat-history so its keywords decide when it fires",
        )
    ]


def test_keywords_in_chat_history_and_greetings_without_them_are_fine():
    chat = {**GOLD_LORE, "section": "chat-history"}
    greeting = {"id": "hi", "role": "greeting", "content": "Hello", "keywords": ["x"]}
    assert found(world(chat, greeting), "keywords-ignored") == []


def test_unknown_variables_and_macros_in_any_text_are_found():
    entry = {**GOLD_LORE, "content": "You have {{gold}} and {{unknown-thing}}, {{char}}."}
    rule = {
        "id": "pay",
        "trigger": {"type": "every-turn"},
        "actions": [{"type": "notify-player", "message": "Paid {{ gold }}"}],
    }
    variable = {
        "id": "health",
        "type": "number",
        "defaultValue": 5,
        "description": "{{getvar::health}}",
    }
    data = {**world(entry), "rules": [rule], "variables": [variable]}
    end = "is no variable and no macro, so it reaches the prompt as written: create the variable "
    assert found(data, "unknown-macro") == [
        ("warning", "entries[0].content", "{{gold}} " + end + "or fix the name"),
        ("warning", "entries[0].content", "{{unknown-thing}} " + end + "or fix the name"),
        ("warning", "variables[0].description", "{{getvar::health}} " + end + "or fix the name"),
        ("warning", "rules[0].actions[0].message", "{{gold}} " + end + "or fix the name"),
    ]


def test_known_macros_variables_comments_and_ui_code_are_not_flagged():
    text = "{{char}} {{user}} {{health}} {{random::a::b}} {{// a note}} {{TURNCOUNT}} {{trim}}"
    entry = {**GOLD_LORE, "section": "chat-history", "content": text}
    data = {**world(entry), "customUI": "<div style={{color: 'red'}} />"}
    assert found(data, "unknown-macro") == []


def test_the_cli_prints_the_new_warnings_with_the_same_keys(tmp_path):
    path = tmp_path / "lab.json"
    entry = {**GOLD_LORE, "content": "{{gold}} {{health}}"}
    path.write_text(json.dumps(world(entry)), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "engine", "lint", "--world", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0
    assert {tuple(line) for line in lines} == {("severity", "code", "path", "message")}
    assert {"keywords-ignored", "unknown-macro"} <= {line["code"] for line in lines}
