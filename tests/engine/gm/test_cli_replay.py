"""``python -m engine gm --replay REC.json`` (issue 33 §6; ``engine.gm.replay``): a recording the
site exports plays again with no model, the same JSON lines as ``--script``; a step the
recording does not answer is played by the offline master."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from engine.cli import main
from engine.gm.play import GMAction, play_gm_action
from engine.gm.replay import read_demo, step_action
from engine.llm.recording import Recording, RecordingProvider
from engine.session import SessionState, ToolCall
from tests.engine.gm.test_cli import KEYS, write
from tests.engine.gm.test_talk_flow import Scripted, closing
from tests.engine.gm.worlds import DEMO_PATH, demo_world

ACTIONS: list[GMAction] = ["Hello, Hilda.", "look around", "I hum an old song"]
STEPS = [
    {"kind": "message", "text": "Hello, Hilda."},
    {"kind": "message", "text": "look around"},
    {"kind": "message", "text": "I hum an old song"},
]
HUM = [ToolCall("c1", "log_event", {"narration": "You hum; the room goes quiet to listen."})]


def recorded() -> tuple[dict[str, Any], list[str]]:
    """A demo export of three steps played by a scripted model, and the narrations it showed."""
    world, recording = demo_world(), Recording()
    provider = RecordingProvider(Scripted(closing("Good to see you, Ren."), HUM), recording)
    state, narrations = SessionState.initial(world), []
    for action in ACTIONS:
        done = asyncio.run(
            play_gm_action(world, state, "ren", action, provider=provider, rng_seed=5)
        )
        state = done.state
        narrations.append(done.narration)
    turns = {f"{2 * i + 1}:message": {"dice": 5, "now": None} for i in range(len(STEPS))}
    demo = {
        "format": "fabula-demo",
        "version": 1,
        "world": {"version_id": 1, "content_hash": ""},
        "persona": {},
        "actions": [s["text"] for s in STEPS],
        "steps": STEPS,
        "character": "ren",
        "turns": turns,
        "recording": recording.to_dict(),
        "signature": "not checked here",
    }
    return demo, narrations


def replay(capsys, tmp_path, demo: dict[str, Any], *more: str) -> tuple[int, list[dict], str]:
    rec = write(tmp_path, "rec.json", demo)
    status = main(["gm", "--world", str(DEMO_PATH), "--replay", rec, "--seed", "5", *more])
    out = capsys.readouterr()
    return status, [json.loads(line) for line in out.out.splitlines()], out.err


def test_a_recording_replays_step_by_step_with_the_script_lines(capsys, tmp_path):
    demo, narrations = recorded()
    status, lines, err = replay(capsys, tmp_path, demo)
    assert status == 0, err
    assert [line["narration"] for line in lines] == narrations
    assert [line["kind"] for line in lines] == ["master", "engine", "master"]
    assert all(set(line) == KEYS | {"replayed"} and line["replayed"] for line in lines)
    assert [line["character"] for line in lines] == ["ren"] * 3


def test_a_step_the_recording_misses_is_played_offline(capsys, tmp_path):
    demo, narrations = recorded()
    exchanges = demo["recording"]["exchanges"]
    for key, exchange in list(exchanges.items()):
        if "hum" in json.dumps(exchange):
            del exchanges[key]
    status, lines, err = replay(capsys, tmp_path, demo)
    assert status == 0, err
    assert [line["replayed"] for line in lines] == [True, True, False]
    assert lines[0]["narration"] == narrations[0]
    assert lines[2]["narration"] == "You do as you said: “I hum an old song”. Nothing changes."


def test_a_script_beside_a_bare_recording_gives_the_actions(capsys, tmp_path):
    demo, narrations = recorded()
    script = write(tmp_path, "s.json", {"character": "ren", "actions": ACTIONS[:1]})
    status, lines, err = replay(capsys, tmp_path, demo["recording"], "--script", script)
    assert status == 0, err
    assert [line["narration"] for line in lines] == narrations[:1] and lines[0]["replayed"]


def test_trace_lists_the_replayed_requests(capsys, tmp_path):
    demo, _ = recorded()
    status, _, err = replay(capsys, tmp_path, demo, "--trace")
    assert status == 0
    traced = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert [t["director"] for t in traced] == ["master", "master"]


def test_a_file_that_is_no_recording_exits_1_saying_so(capsys, tmp_path):
    status, lines, err = replay(capsys, tmp_path, {"format": "something"})
    assert status == 1 and lines == [] and "not a recording export" in err


def test_neither_script_nor_replay_exits_1(capsys):
    status = main(["gm", "--world", str(DEMO_PATH)])
    assert status == 1 and "give --script S.json" in capsys.readouterr().err


def test_steps_read_as_the_adapter_reads_a_turn():
    assert step_action({"kind": "message", "text": "go north"}, []) == "go north"
    assert step_action({"kind": "action", "action": "roll"}, []) == {"roll": True}
    assert step_action({"kind": "action", "action": "click:point:well"}, []) == {
        "click": {"point": "well"}
    }
    assert step_action({"kind": "regenerate"}, ["hi", {"roll": True}]) == "hi"
    assert step_action({"kind": "continue"}, []) is None


def test_each_step_keeps_its_turns_dice_seed_in_the_order_played():
    demo = {
        "format": "fabula-demo",
        "recording": Recording().to_dict(),
        "steps": [{"kind": "message", "text": "a"}, {"kind": "message", "text": "b"}],
        "turns": {"10:message": {"dice": 2}, "start": {"dice": 9}, "3:message": {"dice": 1}},
    }
    assert [(s.action, s.seed) for s in read_demo(demo).steps] == [("a", 1), ("b", 2)]
