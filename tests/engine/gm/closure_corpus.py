"""The closure corpus (issue 34 §5): narrations that must be rejected and near misses that must
pass, per rule and language, kept as data in ``tests/engine/gm/corpus/closure/<rule>.json``.

A file holds ``setups`` (a scenario: the world, who plays and where; the turn's tool calls with
their results, the rolls, the master's structured claims) and ``groups``: a setup, a language,
the narrations to ``reject`` (the file's rule must fire) and those to ``pass`` (no rule may
fire). The worlds are the Brackenford demo (studio/fixtures/gm_demo_world.json) and two built
for the corpus in ``corpus/worlds``: a Spanish village and a Chinese town, each with another
player's character in the scene. ``bench/closure.py`` and ``test_closure_corpus.py`` read it.
``holdout-1.json`` and ``holdout-2.json`` were written after the rules and measured once before
any fix (bench figures in the issue's closing note); ``holdout/`` holds the set written last,
measured by the bench only and kept out of the test so that it stays unseen.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from engine.gm.closure import TurnFacts, check_closure
from engine.gm.dice import Roll
from engine.gm.scene import Scene
from engine.gm.tools import ToolCall, ToolOutcome
from engine.world import WorldDefinition, load_world
from tests.engine.gm.worlds import demo_data, new_state, scene_for

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "closure"
WORLDS = HERE / "corpus" / "worlds"
LANGUAGES = ("en", "es", "zh")


@dataclass(frozen=True)
class Case:
    rule: str
    language: str
    setup: str
    narration: str
    reject: bool
    spec: dict[str, Any] = field(repr=False, compare=False)


SCENES = {"en": ("demo", "ren"), "es": ("valdehierro", "lia"), "zh": ("qingshi", "ache")}


def violations(language: str, narration: str, **spec: Any) -> list[str]:
    """The rules ``narration`` breaks in the language's corpus scene (its world and player),
    with ``spec``'s tools or rolls as a corpus setup gives them: the unit tests' one call."""
    world, character = SCENES[language]
    full = {"scenario": {"world": world, "character": character}, **spec}
    case = Case("", language, "t", narration, True, full)
    return check_closure(narration, TurnFacts(**turn_of(case)), scene_of(case)).violations


def cases(folder: Path = CORPUS) -> list[Case]:
    """Every case of the corpus files in ``folder`` (a group may name its own rule)."""
    out: list[Case] = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for group in data["groups"]:
            spec, rule = data["setups"][group["setup"]], group.get("rule", data["rule"])
            for verdict in ("reject", "pass"):
                for text in group.get(verdict, []):
                    reject = verdict == "reject"
                    out.append(Case(rule, group["lang"], group["setup"], text, reject, spec))
    return out


@cache
def world(name: str) -> WorldDefinition:
    data = demo_data() if name == "demo" else _world_data(name)
    return load_world(copy.deepcopy(data))


@cache
def _world_data(name: str) -> dict[str, Any]:
    return dict(json.loads((WORLDS / f"{name}.json").read_text(encoding="utf-8")))


def scene_of(case: Case) -> Scene:
    """A fresh scene of the case's scenario (the character moved where it says, places
    found as it says)."""
    scenario = case.spec.get("scenario", {})
    played = world(scenario.get("world", "demo"))
    assert played.game_master is not None
    character = scenario.get("character") or played.game_master.characters[0].id
    scene = scene_for(played, new_state(played), character, case.language)
    me = scene.me
    if scenario.get("where"):
        me.location = scenario["where"]
    me.discovered = [*me.discovered, *scenario.get("discovered", [])]
    me.known_places = [*me.known_places, *scenario.get("knownPlaces", [])]
    if scenario.get("timeOfDay"):
        scene.state.clock.time_of_day = scenario["timeOfDay"]
    scene._npcs.clear()
    return scene


def turn_of(case: Case) -> dict[str, Any]:
    """The turn's facts as keyword arguments of ``TurnFacts`` (the claims only when given)."""
    scenario = case.spec.get("scenario", {})
    played = world(scenario.get("world", "demo"))
    assert played.game_master is not None
    character = scenario.get("character") or played.game_master.characters[0].id
    calls = [_call(n, c) for n, c in enumerate(case.spec.get("tools", []))]
    out: dict[str, Any] = {
        "tool_calls": calls,
        "rolls": [_roll(r) for r in case.spec.get("rolls", [])],
        "character_id": character,
        "player_character_ids": [c.id for c in played.game_master.characters if c.id != character],
        "language": case.language,
    }
    if case.spec.get("claims"):
        out["claims"] = case.spec["claims"]
    return out


def _call(n: int, spec: dict[str, Any]) -> tuple[ToolCall, ToolOutcome]:
    ok = bool(spec.get("ok", True))
    result = dict(spec.get("result") or ({"done": "."} if ok else {"code": "refused"}))
    outcome = ToolOutcome(ok, result, error=str(spec.get("error", "" if ok else "No.")))
    outcome.changes.update(spec.get("changes") or {})
    return ToolCall(f"c{n}", spec["name"], dict(spec.get("arguments") or {})), outcome


def _roll(spec: dict[str, Any]) -> Roll:
    face = 15 if spec["outcome"] in ("success", "critical-success") else 4
    return Roll(
        kind=spec.get("kind", "check"),
        die="d20",
        faces=[face],
        dc=int(spec.get("dc", 12)),
        outcome=spec["outcome"],
        check=spec.get("check"),
        natural=face,
    )
