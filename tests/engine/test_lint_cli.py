"""``python -m engine lint``, run as other tools run it (a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.engine.test_cli import run, write

CLEAN: dict[str, Any] = {
    "name": "Clean",
    "variables": [{"id": "hp", "type": "number", "defaultValue": 5, "behaviorRules": "Hits."}],
    "entries": [{"id": "hello", "role": "greeting", "content": "Hi."}],
}


def lines(stdout: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_a_clean_world_prints_nothing_and_exits_0(tmp_path: Path) -> None:
    done = run("lint", "--world", write(tmp_path / "w.json", CLEAN))

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_warnings_alone_exit_0_one_json_object_per_line(tmp_path: Path) -> None:
    world = {**CLEAN, "variables": [{"id": "gold", "type": "number"}]}

    done = run("lint", "--world", write(tmp_path / "w.json", world))

    assert done.returncode == 0
    assert lines(done.stdout) == [
        {
            "severity": "warning",
            "code": "variable-unused",
            "path": "variables[0]",
            "message": "nothing reads or writes it (no condition, trigger, action, macro or "
            "directive)",
        }
    ]


def test_errors_exit_1_and_are_listed_first(tmp_path: Path) -> None:
    world = {
        "name": "Broken",
        "variables": [{"id": "gold", "type": "number"}],
        "entries": [
            {"id": "hello", "role": "greeting", "content": ""},
            {"id": "shop", "content": "x", "conditions": [
                {"variableId": "coins", "operator": "gt", "value": 1}]},
        ],
    }  # fmt: skip

    done = run("lint", "--world", write(tmp_path / "w.json", world))

    assert done.returncode == 1
    assert [(f["severity"], f["code"], f["path"]) for f in lines(done.stdout)] == [
        ("error", "empty-greeting", "entries[0].content"),
        ("error", "unknown-variable", "entries[1].conditions[0].variableId"),
        ("warning", "variable-unused", "variables[0]"),
    ]
    assert done.stderr == ""


def test_a_world_that_does_not_load_gives_its_errors_as_findings(tmp_path: Path) -> None:
    world = {"name": "Bad", "variables": [{"id": "hp", "type": "number", "min": 0, "max": 10,
                                           "defaultValue": 11}]}  # fmt: skip

    done = run("lint", "--world", write(tmp_path / "w.json", world))

    assert done.returncode == 1
    assert lines(done.stdout) == [
        {
            "severity": "error",
            "code": "default-out-of-range",
            "path": "variables[0].defaultValue",
            "message": "must be between 0 and 10, got 11",
        }
    ]


def test_json_that_is_not_an_object_is_an_error_finding(tmp_path: Path) -> None:
    done = run("lint", "--world", write(tmp_path / "w.json", [1, 2]))

    assert done.returncode == 1
    assert lines(done.stdout) == [
        {
            "severity": "error",
            "code": "invalid",
            "path": "$",
            "message": "must be a JSON object, got array",
        }
    ]


def test_an_unreadable_file_exits_1_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    broken = tmp_path / "broken.json"
    broken.write_text("{oops", encoding="utf-8")

    gone = run("lint", "--world", str(missing))
    bad = run("lint", "--world", str(broken))

    assert (gone.returncode, gone.stdout) == (1, "")
    assert gone.stderr == f"error: {missing}: cannot read file: No such file or directory\n"
    assert (bad.returncode, bad.stdout) == (1, "")
    assert bad.stderr == (
        f"error: {broken}: invalid JSON: Expecting property name enclosed in double quotes "
        "at line 1 column 2\n"
    )
