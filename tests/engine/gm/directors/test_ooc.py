"""The line out of character for the player (issue 32, finding 6; seed 003: the Story Director
"puede opcionalmente emitir diálogo fuera de personaje al jugador"): written by a separate call
from the player's view alone, never from the words of the Story Director, who sees every
secret. Canary secrets the Story Director tries to pass on (paraphrased, in Spanish, letters
spaced apart) reach neither that call's request nor anything the player reads."""

from __future__ import annotations

import ast
import dataclasses
import json
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

from engine.gm.directors import ooc
from engine.gm.directors.ooc import PlayerView, ooc_request, parse_ooc
from engine.gm.play import GMActionResult
from engine.llm.base import ChatRequest
from tests.engine.gm.directors.campaigns import ROOT
from tests.engine.gm.directors.canaries import (
    CANARIES,
    ECHOES,
    OOC_LINE,
    canary_data,
    canary_world,
    leaked,
    turn_replies,
)
from tests.engine.gm.directors.support import Directors, new_session, play, report
from tests.engine.gm.directors.test_public import FORBIDDEN, LEAVES

ACTIONS = ("Morning, Greta.", "What's fresh today?", "Is the rye still warm?")


def shown(result: GMActionResult, character: str = "mira") -> list[str]:
    """Everything of one action its player can read, and the CLI's whole JSON line."""
    out = [result.narration, *result.suggestions, *result.delivered_to.values()]
    for event in result.events:
        if character in (event.actor, *event.seen_by, *event.heard_by):
            out += [event.text, *(str(b.get("text", "")) for b in event.data.get("bubbles", []))]
    out.append(json.dumps(result.changes, ensure_ascii=False))
    return out


def play_the_sloppy_story_director() -> tuple[Directors, list[GMActionResult]]:
    world = canary_world()
    state, provider, results = new_session(world), Directors(), []
    for action, echo in zip(ACTIONS, ECHOES, strict=True):
        provider.add(**turn_replies(echo))
        result = play(world, state, "mira", action, provider)
        state = result.state
        results.append(result)
    return provider, results


def test_no_canary_reaches_the_player_through_the_line_out_of_character():
    provider, results = play_the_sloppy_story_director()
    assert provider.labels == ["game", "story", "scene", "ooc"] * len(ACTIONS)
    assert all(set(CANARIES) <= set(leaked(text)) for text in provider.texts("story"))
    for result in results:
        assert report(result)["ooc"] == OOC_LINE
        assert [text for text in shown(result) if leaked(text)] == []


def test_every_request_for_the_line_is_free_of_the_canaries():
    provider, _ = play_the_sloppy_story_director()
    requests = provider.texts("ooc")
    assert len(requests) == len(ACTIONS)
    assert [leaked(text) for text in requests] == [[]] * len(ACTIONS)
    assert all("Morning! Rye or barley?" in text for text in requests)  # what he read


def test_without_a_request_from_the_story_director_no_line_is_written():
    world = canary_world()
    replies = turn_replies(ECHOES[0])
    replies["story"] = [{"text": replies["story"][0]["text"].split("<ooc>")[0]}]
    provider = Directors(**{k: v for k, v in replies.items() if k != "ooc"})
    result = play(world, new_session(world), "mira", ACTIONS[0], provider)
    assert provider.labels == ["game", "story", "scene"] and report(result)["ooc"] == ""


def test_the_line_is_written_from_the_players_view_alone():
    hints = typing.get_type_hints(ooc_request)
    assert hints == {"view": PlayerView, "base": ChatRequest | None, "return": ChatRequest}
    for field in dataclasses.fields(PlayerView):
        annotation = typing.get_type_hints(PlayerView)[field.name]
        members = typing.get_args(annotation) or (annotation,)
        assert all(m in LEAVES or m is Ellipsis for m in members), (field.name, annotation)
        assert field.name not in FORBIDDEN
    assert PlayerView.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_the_ooc_module_cannot_reach_the_world():
    tree = ast.parse(Path(ooc.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    reachable = {"engine.gm.world", "engine.gm.state", "engine.gm.scene", "engine.world"}
    assert imported & reachable == set()
    assert not any(m.startswith(("engine.gm.tools", "engine.gm.directors.story")) for m in imported)


def test_the_line_is_read_as_one_plain_line():
    assert parse_ooc("<think>hmm</think>OOC: you may\n  move on.") == "You may move on."
    assert parse_ooc("") == ""


def _write(tmp: Path, name: str, data: object) -> str:
    path = tmp / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_the_cli_prints_no_canary_and_traces_a_clean_request_for_the_line(tmp_path):
    world = _write(tmp_path, "w.json", canary_data())
    replies: list[dict[str, Any]] = []
    for echo in ECHOES:
        turn = turn_replies(echo)
        replies += [*turn["game"], *turn["story"], *turn["scene"], *turn["ooc"]]
    script = {"character": "mira", "actions": list(ACTIONS)}
    args = ["--world", world, "--script", _write(tmp_path, "s.json", script)]
    args += ["--replies", _write(tmp_path, "r.json", replies), "--trace", "--seed", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "engine", "gm", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(ACTIONS) and [x for x in lines if leaked(x)] == []
    assert [json.loads(x)["changes"]["directors"]["ooc"] for x in lines] == [OOC_LINE] * 3
    traced = [json.loads(line) for line in done.stderr.splitlines()]
    asked = [t for t in traced if t["director"] == "ooc"]
    assert len(asked) == len(ACTIONS)
    assert [leaked(json.dumps(t, ensure_ascii=False)) for t in asked] == [[]] * len(ACTIONS)
