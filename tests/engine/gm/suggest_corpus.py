"""The suggestion corpus (tests/engine/gm/corpus/suggestions.json, issue 34 §4) played through
the leak filter the way ``log_event`` runs it: the names the narration delivers are learnt first,
then the master's buttons are filtered with the narration as what the player was just told.

Shared by tests/engine/gm/test_suggest_corpus.py (0 leaks, ≤ 5 % of legitimate buttons dropped
per language) and bench/suggest.py (the rates and the time per call)."""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.gm.scene import Scene
from engine.gm.state import log_event
from engine.gm.suggest import filter_suggestions, learn_names
from engine.gm.words import lexicon
from engine.world import load_world
from tests.engine.gm.worlds import demo_data, new_state, scene_for

CORPUS = Path(__file__).parent / "corpus" / "suggestions.json"
LANGUAGES = ("en", "es", "zh")


def corpus(path: Path = CORPUS) -> dict[str, Any]:
    """The corpus file (by default suggestions.json; the bench may name a held-out one)."""
    return dict(json.loads(path.read_text(encoding="utf-8")))


def scene_of(case: dict[str, Any], data: dict[str, Any]) -> Scene:
    """The case's scene: its world in its language, its character where it says, the names he
    learnt in play and the events he perceived before."""
    language = case["language"]
    if case["world"] == "demo":
        world_data = copy.deepcopy(demo_data())
        world_data["language"] = language
        for npc in world_data["gameMaster"]["npcs"]:
            npc.pop("translations", None)  # named as the corpus says, not as the demo's
            npc.update(data["people"][language].get(npc["id"], {}))
    else:
        world_data = copy.deepcopy(data["harbour"][language])
    world = load_world(world_data)
    assert world.game_master is not None
    who = case.get("character") or world.game_master.characters[0].id
    scene = scene_for(world, new_state(world), who, language)
    scene.world_lex = lexicon(language)  # the world's language: names in the event log
    scene.me.location = case.get("at", scene.me.location)
    scene.me.known_names.extend(case.get("learnt", []))
    for text in case.get("seen", []):
        log_event(scene.state, "master", who, scene.me.location, text, seen_by=[who])
    return scene


def shown_for(case: dict[str, Any], data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """What the player sees of the whole list, and of each button alone."""
    scene = scene_of(case, data)
    heard = case.get("heard", "")
    learn_names(scene, heard, [scene.character_id])
    given = [item["text"] for item in case["given"]]
    alone = [filter_suggestions([text], scene, (), heard=heard) for text in given]
    return filter_suggestions(given, scene, (), heard=heard), alone


@dataclass
class Tally:
    """Per language: leaks (a button to drop shown), legitimate buttons dropped, repeats left."""

    legitimate: int = 0
    dropped: list[str] = field(default_factory=list)
    to_drop: int = 0
    leaks: list[str] = field(default_factory=list)
    repeats: int = 0
    unmerged: list[str] = field(default_factory=list)
    seconds: float = 0.0
    calls: int = 0

    @property
    def over_filtering(self) -> float:
        return len(self.dropped) / self.legitimate if self.legitimate else 0.0


def tally(data: dict[str, Any] | None = None) -> dict[str, Tally]:
    """Play every case; the figures per language."""
    data = data or corpus()
    out = {lang: Tally() for lang in LANGUAGES}
    for case in data["cases"]:
        count = out[case["language"]]
        start = time.perf_counter()
        shown, alone = shown_for(case, data)
        count.seconds += time.perf_counter() - start
        count.calls += 1
        for item, own in zip(case["given"], alone, strict=True):
            _count(count, case["id"], item, shown, own)
    return out


def _count(
    count: Tally, ident: str, item: dict[str, Any], shown: list[str], own: list[str]
) -> None:
    label = f"{ident}: {item['text']}"
    if item["keep"]:
        count.legitimate += 1
        if item.get("shown", item["text"]) not in shown:
            count.dropped.append(f"{label} → {shown}")
    elif item["why"] == "dup":
        count.repeats += 1
        if item["text"] in shown:
            count.unmerged.append(label)
    else:
        count.to_drop += 1
        if own:
            count.leaks.append(f"{label} ({item['why']}) → {own}")
