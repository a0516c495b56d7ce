"""``python -m engine gm`` with several characters in one script (issue 12 §6): actions
``{"character": ID, "input": ACTION}``, each line naming who played and what each character
received (``delivered_to``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.engine.gm.test_cli import run_cli, write
from tests.engine.gm.worlds import DEMO_PATH

# How each looks to the other before they meet (the demo's public appearance; issue 33 §5).
REN_LOOKS = "A lean young man in a patched green coat"
ADA_LOOKS = "A tall woman in a grey travelling cloak with a lantern sigil"

SCRIPT: list[Any] = [
    "Hello Hilda, how are you?",  # Ren, the script's character, at the inn
    {"character": "ada", "input": "go north"},  # Ada walks in from the square
    {"character": "ada", "input": "Hilda, any news?"},  # Hilda is talking with Ren
    {"character": "ada", "input": "I join the conversation"},
    {"character": "ren", "input": "I whisper to Hilda: the ring is fake"},
    {"character": "ada", "input": {"roll": True}},
    {"character": "ada", "input": {"click": {"location": "square"}}},
]


def play(tmp_path: Path, script: dict[str, Any]) -> list[dict[str, Any]]:
    path = write(tmp_path, "s.json", script)
    done = run_cli("--world", str(DEMO_PATH), "--script", path, "--seed", "5")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_each_action_is_played_by_its_character_and_says_who(tmp_path):
    lines = play(tmp_path, {"character": "ren", "actions": SCRIPT})
    assert [line["character"] for line in lines] == [
        "ren",
        "ada",
        "ada",
        "ada",
        "ren",
        "ada",
        "ada",
    ]
    assert [line["kind"] for line in lines] == [
        "master",
        "engine",
        "refused",
        "engine",
        "master",
        "refused",
        "engine",
    ]
    assert [line["location"] for line in lines][1:] == [
        "the-wayfarer",
        "the-wayfarer",
        "the-wayfarer",
        "the-wayfarer",
        "the-wayfarer",
        "square",
    ]


def test_each_line_lists_what_every_character_received(tmp_path):
    lines = play(tmp_path, {"character": "ren", "actions": SCRIPT})
    talk, arrive, wait, join, whisper, roll, leave = lines
    assert set(talk["delivered_to"]) == {"ren"}  # Ada is still in the square
    # strangers until they meet (issue 33 §5): joining his conversation is meeting him
    assert arrive["delivered_to"]["ren"] == f"{ADA_LOOKS} arrives from Market Square."
    assert wait["delivered_to"] == {"ada": wait["narration"]}
    assert REN_LOOKS.lower() in wait["narration"] and "Ren Ashby" not in wait["narration"]
    assert join["delivered_to"]["ren"] == "Ada Thorne joins the conversation with the innkeeper."
    assert whisper["delivered_to"]["ada"] == "Ren Ashby whispers something to the innkeeper."
    assert "ring" not in json.dumps(whisper["delivered_to"]["ada"])
    assert roll["delivered_to"] == {"ada": roll["narration"]}
    assert leave["delivered_to"]["ren"].startswith("Ada Thorne goes south")
    for line in lines:
        assert line["delivered_to"][line["character"]] == line["narration"]


def test_a_single_character_script_still_works_and_lists_delivery(tmp_path):
    lines = play(tmp_path, {"character": "ren", "actions": ["look around", "go south"]})
    assert [line["character"] for line in lines] == ["ren", "ren"]
    assert lines[1]["delivered_to"]["ada"] == f"{REN_LOOKS} arrives from The Wayfarer's Rest."


def test_an_unknown_character_in_an_action_exits_1_naming_it(tmp_path):
    script = {"actions": ["look", {"character": "zed", "input": "look"}]}
    done = run_cli("--world", str(DEMO_PATH), "--script", write(tmp_path, "s.json", script))
    assert done.returncode == 1 and not done.stdout
    assert "unknown character 'zed' (the world has: ren, ada)" in done.stderr


def test_a_bad_multiplayer_action_exits_1(tmp_path):
    for bad in (
        {"character": "ada", "input": 3},
        {"character": 7, "input": "look"},
        {"character": "ada", "input": {"character": "ren", "input": "look"}},
    ):
        path = write(tmp_path, "s.json", {"actions": [bad]})
        done = run_cli("--world", str(DEMO_PATH), "--script", path)
        assert done.returncode == 1 and "actions[0] must be" in done.stderr
        assert '{"character": ID, "input": one of those}' in done.stderr
