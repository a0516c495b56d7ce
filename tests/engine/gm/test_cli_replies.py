"""``python -m engine gm --replies R.json [--trace]``: the tool-calling master's contract, checked
from outside in a subprocess (issue "Game master II" §7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.engine.gm.test_cli import KEYS, run_cli, write
from tests.engine.gm.worlds import DEMO_PATH

MASTER_KEYS = KEYS | {"tool_calls", "closure", "attempts"}
CALL_KEYS = {"name", "arguments", "ok", "error"}
CALM = "You hum an old song; the notes drift over the cobbles."
LATER = "Hours later, the sun sets and you are still humming."
ACTIONS: list[Any] = ["I hum an old song", "go north", "I hum again", "I tap my mace"]
REPLIES = [
    # I hum an old song: a rule read, then the closure
    {
        "text": "Let me see.",
        "tool_calls": [{"name": "lookup_rule", "arguments": {"topic": "advantage"}}],
    },
    {"tool_calls": [{"name": "log_event", "arguments": {"narration": CALM}}]},
    # go north: an engine move, no reply used
    # I hum again: rejected once (time advanced), then accepted
    {"tool_calls": [{"name": "log_event", "arguments": {"narration": LATER}}]},
    {"tool_calls": [{"name": "log_event", "arguments": {"narration": "You hum, softly."}}]},
    # I tap my mace: a failed tool, then a closure narrating the failure
    {"tool_calls": [{"name": "move_character", "arguments": {"to": "the moon"}}]},
    {"tool_calls": [{"name": "log_event", "arguments": {"narration": "You tap your mace."}}]},
]


@pytest.fixture(scope="module")
def played(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[dict[str, Any]], list[Any], Path]:
    tmp = tmp_path_factory.mktemp("replies")
    script = write(tmp, "s.json", {"character": "ada", "actions": ACTIONS})
    replies = write(tmp, "r.json", REPLIES)
    done = run_cli(
        "--world",
        str(DEMO_PATH),
        "--script",
        script,
        "--seed",
        "3",
        "--replies",
        replies,
        "--trace",
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    traced = [json.loads(line) for line in done.stderr.splitlines()]
    return lines, traced, tmp


def test_each_line_adds_tool_calls_closure_and_attempts(played):
    lines, _, _ = played
    assert len(lines) == len(ACTIONS)
    for line in lines:
        assert set(line) == MASTER_KEYS
        assert set(line["closure"]) == {"ok", "violations"}
        assert all(set(call) == CALL_KEYS for call in line["tool_calls"])


def test_a_master_turn_lists_each_call_with_its_result(played):
    lines, _, _ = played
    first = lines[0]
    assert (first["kind"], first["narration"], first["model_calls"]) == ("master", CALM, 2)
    assert first["tool_calls"] == [
        {"name": "lookup_rule", "arguments": {"topic": "advantage"}, "ok": True, "error": ""},
        {"name": "log_event", "arguments": {"narration": CALM}, "ok": True, "error": ""},
    ]
    assert (first["closure"], first["attempts"]) == ({"ok": True, "violations": []}, 1)


def test_an_engine_move_has_no_calls_and_a_clean_closure(played):
    lines, _, _ = played
    move = lines[1]
    assert (move["kind"], move["model_calls"], move["tool_calls"]) == ("engine", 0, [])
    assert (move["closure"], move["attempts"]) == ({"ok": True, "violations": []}, 0)


def test_a_rejected_narration_is_retried_and_counted(played):
    lines, _, _ = played
    retried = lines[2]
    assert retried["narration"] == "You hum, softly." and retried["attempts"] == 2
    assert retried["closure"] == {"ok": True, "violations": []}
    rejected = retried["tool_calls"][0]
    assert (rejected["ok"], rejected["arguments"]["narration"]) == (False, LATER)
    assert LATER not in json.dumps(retried["events"])


def test_a_failed_tool_is_listed_with_its_error(played):
    lines, _, _ = played
    failed = lines[3]["tool_calls"][0]
    assert (failed["name"], failed["ok"]) == ("move_character", False) and failed["error"]
    assert lines[3]["narration"] == "You tap your mace."


def test_trace_prints_every_model_request_with_messages_and_tools(played):
    lines, traced, _ = played
    assert len(traced) == sum(line["model_calls"] for line in lines) == len(REPLIES)
    first = traced[0]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert "log_event" in [tool["name"] for tool in first["tools"]]
    assert traced[1]["messages"][2]["tool_calls"][0]["name"] == "lookup_rule"
    assert traced[1]["messages"][3]["role"] == "tool"
    retry = traced[3]  # the retry: the tools its scene offers, any of them
    assert retry["tool_choice"] == "auto" and retry["tools"] == traced[2]["tools"]


def test_running_out_of_replies_says_so(played):
    _, _, tmp = played
    script = write(tmp, "short.json", {"character": "ada", "actions": ACTIONS})
    replies = write(tmp, "few.json", REPLIES[:3])
    done = run_cli("--world", str(DEMO_PATH), "--script", script, "--replies", replies)
    assert done.returncode == 1
    assert "replies exhausted" in done.stderr and "actions[2]" in done.stderr
    assert len(done.stdout.splitlines()) == 2  # the actions played before it are printed


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "invalid JSON"),
        (json.dumps({"text": "x"}), "replies must be a list"),
        (json.dumps([{"tool_calls": [{"arguments": {}}]}]), "replies[0].tool_calls[0].name"),
        (json.dumps([{"text": 1}]), "replies[0].text must be a string"),
    ],
)
def test_a_bad_replies_file_exits_1_naming_the_problem(played, content, problem):
    _, _, tmp = played
    script = write(tmp, "one.json", {"actions": ["I hum"]})
    bad = tmp / "bad.json"
    bad.write_text(content, encoding="utf-8")
    done = run_cli("--world", str(DEMO_PATH), "--script", script, "--replies", str(bad))
    assert done.returncode == 1 and done.stdout == ""
    assert problem in done.stderr and str(bad) in done.stderr


def test_a_missing_replies_file_exits_1(played):
    _, _, tmp = played
    script = write(tmp, "one.json", {"actions": ["I hum"]})
    done = run_cli("--world", str(DEMO_PATH), "--script", script, "--replies", str(tmp / "no.json"))
    assert done.returncode == 1 and "cannot read file" in done.stderr


# --- retry with tools (issue 34 §3) -------------------------------------------------------------

PLEDGE = "Hilda takes your dagger as a pledge and counts out four coins."
PAWN = {"name": "pawn_item", "arguments": {"item": "dagger", "to": "hilda"}}


def close(narration: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "log_event", "arguments": {"narration": narration}}]}


def test_a_rejected_deal_is_fixed_with_pawn_item_on_the_retry_and_accepted(played):
    _, _, tmp = played
    script = write(tmp, "pledge.json", {"character": "ren", "actions": ["I pledge my dagger"]})
    fixed = {"tool_calls": [PAWN, *close(PLEDGE)["tool_calls"]]}
    replies = write(tmp, "pledge-replies.json", [close(PLEDGE), fixed])
    done = run_cli("--world", str(DEMO_PATH), "--script", script, "--replies", replies)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert (line["narration"], line["attempts"]) == (PLEDGE, 2)
    assert line["closure"] == {"ok": True, "violations": []}
    calls = [(c["name"], c["ok"]) for c in line["tool_calls"]]
    assert calls == [("log_event", False), ("pawn_item", True), ("log_event", True)]
    assert line["changes"]["items"]  # the dagger went to Hilda: no "Nada cambia" fallback


def test_at_the_cap_the_call_is_log_event_only_and_then_the_template(played):
    _, _, tmp = played
    script = write(tmp, "later.json", {"character": "ada", "actions": ["I hum"]})
    replies = write(tmp, "later-replies.json", [close(LATER)] * 3)
    done = run_cli("--world", str(DEMO_PATH), "--script", script, "--replies", replies, "--trace")
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    choices = [json.loads(t)["tool_choice"] for t in done.stderr.splitlines()]
    assert choices == ["auto", "auto", {"name": "log_event"}]
    assert line["attempts"] == 3
    assert line["closure"] == {"ok": False, "violations": ["time-advanced"]}
    assert line["narration"] and LATER not in line["narration"]
