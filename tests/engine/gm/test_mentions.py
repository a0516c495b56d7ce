"""engine.gm.mentions: names found ignoring case and accents with their positions kept, and a
text folded once however many names are looked up in it (the closure check used to decompose
every character of the world's place text for each of its ~75 place nouns)."""

from __future__ import annotations

import unicodedata

import pytest

from engine.gm import mentions as m
from engine.gm.closure import TurnFacts, check_closure
from tests.engine.gm.toolkit import demo_scene


def test_fold_keeps_one_character_for_one():
    assert m.fold("Ñandú ÉCOLE ﬁ 掷骰") == "nandu ecole ﬁ 掷骰"
    assert len(m.fold("İstanbul")) == len("İstanbul")


@pytest.mark.parametrize(
    ("text", "name", "spaced", "found"),
    [
        ("Ask Hilda at the bar", "hilda", True, [(4, 9)]),
        ("La posada de Brénna", "Brenna", True, [(13, 19)]),
        ("the trapdoors", "trapdoor", True, []),
        ("你问Hilda。", "Hilda", False, [(2, 7)]),
        ("你问Hildas。", "Hilda", False, []),
        ("an old  stone   well", "stone well", True, [(8, 20)]),
    ],
)
def test_spans_and_folded_spans_agree(text, name, spaced, found):
    assert m.spans(text, name, spaced) == found
    assert m.folded_spans(m.fold(text), name, spaced) == found


def test_a_closure_check_decomposes_each_character_once(monkeypatch):
    scene = demo_scene()
    facts = TurnFacts([], [], "ren", [], "en")
    narration = "You lift the rug and find a trapdoor beneath it. A tunnel runs to the cellar."
    check_closure(narration, facts, scene)
    calls: list[str] = []
    real = unicodedata.normalize

    def counting(form: str, text: str) -> str:
        calls.append(text)
        return real(form, text)

    monkeypatch.setattr(m.unicodedata, "normalize", counting)
    m.fold.cache_clear()
    assert check_closure(narration, facts, scene).violations == ["unknown-place"]
    assert calls == []  # every character was seen before: none is decomposed again
