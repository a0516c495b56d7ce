"""engine.gm.trade_read over a phrase corpus (issue 33 §1): at least 40 natural phrasings per move
and language are read as that move (95 % or more), and the near misses never are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.gm.moves import classify
from engine.gm.scene import Scene
from engine.gm.world import Holder
from tests.engine.gm.toolkit import demo_scene

CORPUS = json.loads(
    (Path(__file__).parent / "corpus" / "economy_moves.json").read_text(encoding="utf-8")
)
LANGS = ["en", "es", "zh"]
MOVES = ["buy", "sell", "give", "equip", "unequip"]
TRADE = set(MOVES)
SHARE = 0.95


def scene_at(language: str, location: str | None = None) -> Scene:
    setup = CORPUS["scene"]
    scene = demo_scene(setup["character"], language)
    scene.me.location = location or setup["location"]
    for item in setup["carries"]:
        scene.state.items[item] = Holder(character=scene.character_id)
    scene._npcs.clear()
    return scene


def read(entry: Any, language: str) -> str | None:
    text, at = (entry, None) if isinstance(entry, str) else (entry["text"], entry.get("at"))
    move = classify(text, language, scene_at(language, at))
    return move.kind if move is not None else None


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("kind", ["buy", "sell", "give", "equip"])
def test_players_phrasings_of_a_move_are_read_as_it(language, kind):
    phrases = CORPUS[language][kind]
    assert len(phrases) >= 40
    missed = [p for p in phrases if read(p, language) != kind]
    share = 1 - len(missed) / len(phrases)
    print(f"\n{language} {kind}: {share:.1%} of {len(phrases)} recognised; missed: {missed}")
    assert share >= SHARE, missed


@pytest.mark.parametrize("language", LANGS)
def test_putting_away_what_is_in_hand_is_read_as_unequip(language):
    missed = [p for p in CORPUS[language]["unequip"] if read(p, language) != "unequip"]
    assert missed == []


@pytest.mark.parametrize("language", LANGS)
def test_near_misses_are_never_read_as_a_trade_move(language):
    phrases = CORPUS[language]["none"]
    assert len(phrases) >= 40
    wrong = [(p, read(p, language)) for p in phrases if read(p, language) in TRADE]
    print(f"\n{language} near misses: {len(wrong)} false positives of {len(phrases)}")
    assert wrong == []
