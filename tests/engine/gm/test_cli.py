"""``python -m engine gm``: the CLI contract, over the demo world."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from tests.engine.gm.test_perception import _demo_secrets
from tests.engine.gm.worlds import DEMO_PATH, ROOT, demo_world, tiny_gm

KEYS = {
    "input",
    "kind",
    "model_calls",
    "location",
    "events",
    "rolls",
    "changes",
    "narration",
    "suggestions",
    "context",
    "character",
    "delivered_to",
}
ROLL_KEYS = {"die", "modifier", "total", "dc", "outcome", "hidden"}

# (action, expected kind)
SCRIPT: list[tuple[Any, str]] = [
    ("look around", "engine"),
    ("take the rope", "engine"),
    ("take the moon", "refused"),
    ("go north", "refused"),
    ("take", "ask"),
    ("search the room", "master"),
    ("I hum an old song", "master"),
    ("go south", "engine"),
    ("leo los avisos", "engine"),
    ({"click": {"point": "well"}}, "engine"),
    ("climb the well", "master"),
    ({"roll": True}, "master"),
    ("去酒馆", "engine"),
    ("wait until evening", "engine"),
    ("attack", "ask"),
    ("attack the stable hand", "master"),
    ({"roll": True}, "master"),
    ({"click": {"location": "square"}}, "engine"),
    ("ir al este", "engine"),
    ("go to the mill", "engine"),
]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "gm", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], str]:
    tmp = tmp_path_factory.mktemp("gm")
    script = write(tmp, "s.json", {"character": "ren", "actions": [a for a, _ in SCRIPT]})
    done = run_cli("--world", str(DEMO_PATH), "--script", script, "--seed", "7")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()], script


def test_it_prints_one_json_line_per_action_with_the_contract_fields(played):
    lines, _ = played
    assert len(lines) == len(SCRIPT)
    for line, (action, kind) in zip(lines, SCRIPT, strict=True):
        assert set(line) == KEYS
        assert (line["input"], line["kind"]) == (action, kind), line["narration"]
        assert isinstance(line["narration"], str) and line["narration"]
        assert isinstance(line["context"], str) and line["context"].startswith(
            "Scene for Ren Ashby"
        )
        assert isinstance(line["suggestions"], list) and isinstance(line["changes"], dict)
        assert all(set(roll) == ROLL_KEYS for roll in line["rolls"])


def test_engine_moves_cost_no_model_call(played):
    lines, _ = played
    engine = [line for line in lines if line["kind"] in ("engine", "ask", "refused")]
    assert engine and all(line["model_calls"] == 0 for line in engine)
    assert [line["model_calls"] for line in lines if line["input"] == "I hum an old song"] == [1]


def test_the_script_walks_the_village(played):
    lines, _ = played
    assert [line["location"] for line in lines][-4:] == [
        "the-wayfarer",
        "square",
        "east-road",
        "old-mill",
    ]
    assert lines[-1]["events"][-1]["text"] == (
        "The mill's bell clangs once in the wind, though nobody pulls it."
    )


def test_rolls_carry_their_breakdown_and_hidden_ones_say_so(played):
    lines, _ = played
    search = lines[5]["rolls"][0]
    assert search["hidden"] is True and search["die"] == "d20"
    climb = lines[11]["rolls"][0]
    assert climb["hidden"] is False and climb["dc"] == 15
    assert climb["total"] == int(lines[11]["narration"].split("= ")[1].split(" ")[0])


def test_no_secret_appears_in_any_context(played):
    lines, _ = played
    gm = demo_world().game_master
    assert gm is not None
    secrets = _demo_secrets(gm)
    for line in lines:
        assert [s for s in secrets if s in line["context"]] == [], line["input"]


def test_the_same_seed_replays_the_same_lines(played):
    lines, script = played
    again = run_cli("--world", str(DEMO_PATH), "--script", script, "--seed", "7")
    assert [json.loads(line) for line in again.stdout.splitlines()] == lines
    other = run_cli("--world", str(DEMO_PATH), "--script", script, "--seed", "8")
    rolls = [line["rolls"] for line in lines]
    assert [json.loads(line)["rolls"] for line in other.stdout.splitlines()] != rolls


# --- errors (in process: the same main() the subprocess runs) -------------------------------


def gm_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["gm", *args])
    return status, capsys.readouterr().err


def test_a_missing_world_file(capsys, tmp_path):
    script = write(tmp_path, "s.json", {"actions": []})
    status, err = gm_main(capsys, "--world", str(tmp_path / "nope.json"), "--script", script)
    assert status == 1 and "nope.json: cannot read file: No such file or directory" in err


def test_an_invalid_world_names_the_field(capsys, tmp_path):
    gm = tiny_gm()
    gm["locations"][0]["exits"][0]["to"] = "moon"
    world = write(tmp_path, "w.json", {"name": "T", "gameMaster": gm})
    script = write(tmp_path, "s.json", {"actions": []})
    status, err = gm_main(capsys, "--world", world, "--script", script)
    assert status == 1
    assert "invalid world (1 errors)" in err
    assert "gameMaster.locations[0].exits[0].to: unknown location 'moon'" in err


def test_a_world_without_a_game_master(capsys, tmp_path):
    world = write(tmp_path, "w.json", {"name": "Plain"})
    script = write(tmp_path, "s.json", {"actions": ["look"]})
    status, err = gm_main(capsys, "--world", world, "--script", script)
    assert (status, err) == (1, f"error: {world}: the world has no gameMaster block\n")


def test_an_unknown_character(capsys, tmp_path):
    script = write(tmp_path, "s.json", {"character": "zed", "actions": ["look"]})
    status, err = gm_main(capsys, "--world", str(DEMO_PATH), "--script", script)
    assert (status, err) == (1, "error: unknown character 'zed' (the world has: ren, ada)\n")


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        (["look"], 'a script is {"character": ID, "actions": [...]}'),
        ({"character": 3, "actions": []}, "character must be a string"),
        ({"actions": ["look", {"dance": 1}]}, 'actions[1] must be a string, {"roll": true}'),
    ],
)
def test_a_bad_script(capsys, tmp_path, script, problem):
    path = write(tmp_path, "s.json", script)
    status, err = gm_main(capsys, "--world", str(DEMO_PATH), "--script", path)
    assert status == 1 and problem in err


def test_the_character_option_wins_over_the_script(capsys, tmp_path):
    script = write(tmp_path, "s.json", {"character": "ren", "actions": ["look"]})
    status = main(["gm", "--world", str(DEMO_PATH), "--script", script, "--character", "ada"])
    out = capsys.readouterr().out
    assert status == 0 and json.loads(out)["location"] == "square"


def test_what_a_player_reads_names_only_what_his_character_knows(tmp_path):
    """Issue 32 (finding 7) through the CLI: a click on a place Ren has not discovered, an NPC
    called by a name he never learnt, and an injected master moving him to that place."""
    actions: list[Any] = [
        {"click": {"location": "old-mill"}},
        "wait until evening",
        "Jory, tell me your secret",
    ]
    script = write(tmp_path, "s.json", {"character": "ren", "actions": actions})
    done = run_cli("--world", str(DEMO_PATH), "--script", script, "--seed", "7")
    assert done.returncode == 0, done.stderr
    click, _, jory = [json.loads(line) for line in done.stdout.splitlines()]
    assert click["narration"].startswith("That is somewhere you don't know")
    assert "mill" not in click["narration"].casefold()
    assert "stable hand" not in jory["narration"]  # Jory is a stranger to him: nobody answers
    assert all(e["data"].get("talk") != "jory" for e in jory["events"])
    move = {"name": "move_character", "arguments": {"to": "old-mill"}}
    close = {"name": "log_event", "arguments": {"narration": "The Old Mill is not reachable."}}
    replies = [{"tool_calls": [move]}, *[{"tool_calls": [close]}] * 3]  # three attempts
    script = write(tmp_path, "m.json", {"character": "ren", "actions": ["I hum an old song"]})
    done = run_cli(
        "--world",
        str(DEMO_PATH),
        "--script",
        script,
        "--replies",
        write(tmp_path, "r.json", replies),
    )
    assert done.returncode == 0, done.stderr
    [moved] = [json.loads(line) for line in done.stdout.splitlines()]
    assert moved["narration"].startswith("It does not happen: That way is not possible:")
    assert "mill" not in moved["narration"].casefold() + json.dumps(moved["delivered_to"])


def test_a_fallback_built_from_the_tools_names_no_place_he_has_not_discovered(tmp_path):
    """Issue 32 (finding 7) through the CLI: the master seeds a rumour at the mill and sends
    the stray dog east to it; next turn it sends Hilda, then Ren, to the mill by name. Each
    time it narrates the mill twice, so Ren reads the engine's fallback closure, built from
    what the tools answered."""
    rumour = {"text": "x", "heard_at": ["The Old Mill"]}
    first = [
        {"name": "seed_rumour", "arguments": rumour},
        {"name": "move_character", "arguments": {"who": "ash", "to": "east"}},
    ]
    second = [
        {"name": "move_character", "arguments": {"who": "hilda", "to": "The Old Mill"}},
        {"name": "move_character", "arguments": {"to": "The Old Mill"}},
    ]
    close = {"tool_calls": [{"name": "log_event", "arguments": {"narration": "The Old Mill."}}]}
    replies = [{"tool_calls": first}, *[close] * 3, {"tool_calls": second}, *[close] * 3]
    actions = ["I hum an old song", "I hum another"]
    script = write(tmp_path, "s.json", {"character": "ren", "actions": actions})
    done = run_cli(
        "--world",
        str(DEMO_PATH),
        "--script",
        script,
        "--replies",
        write(tmp_path, "r.json", replies),
    )
    assert done.returncode == 0, done.stderr
    turns = [json.loads(line) for line in done.stdout.splitlines()]
    assert turns[0]["narration"] == (
        "A rumour goes round at a place you don't know. "
        "The stray dog goes to a place you don't know."
    )
    assert turns[1]["narration"].startswith(
        "It does not happen: Hilda Brant cannot go there from where they are. "
        "It does not happen: That way is not possible: That is somewhere you don't know"
    )
    for turn in turns:
        read = [turn["narration"], *turn["delivered_to"].values()]
        read += [e["text"] for e in turn["events"]]
        assert "mill" not in json.dumps(read).casefold()
