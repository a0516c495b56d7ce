"""The read moves' phrase corpus (issue 33 §1): how players ask for their inventory, sheet and
journal and read one notice, in en, es and zh, and what they write that is none of these.

The corpus is data (``corpus/read_moves.<lang>.json``), written after the recogniser and not
fed to it: the test reads each phrase the way play does (``engine.gm.moves.classify``, the
session's language first) and prints the share recognised per move and language.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.gm.moves import classify

CORPUS = Path(__file__).parent / "corpus"
LANGS = ["en", "es", "zh"]
READS = ["inventory", "sheet", "journal", "notice"]
SHARE = 0.95
AT_LEAST = 40


def corpus(language: str) -> dict[str, list[str]]:
    data: dict[str, Any] = json.loads(
        (CORPUS / f"read_moves.{language}.json").read_text(encoding="utf-8")
    )
    return {key: [str(text) for text in texts] for key, texts in data.items()}


def recognised(text: str, language: str, kind: str) -> bool:
    move = classify(text, language)
    if move is None or move.kind != kind:
        return False
    return kind != "notice" or bool(move.target)  # a notice named, not the whole board


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("kind", READS)
def test_players_phrasings_of_each_read_are_recognised(language, kind):
    phrases = corpus(language)[kind]
    assert len(phrases) >= AT_LEAST
    missed = [text for text in phrases if not recognised(text, language, kind)]
    share = 1 - len(missed) / len(phrases)
    print(f"{language} {kind}: {share:.1%} of {len(phrases)} recognised; missed {missed}")
    assert share >= SHARE, missed


@pytest.mark.parametrize("language", LANGS)
def test_near_misses_are_never_read_as_a_read_move(language):
    phrases = corpus(language)["none"]
    assert len(phrases) >= AT_LEAST
    wrong = [
        (text, move.kind)
        for text in phrases
        if (move := classify(text, language)) is not None and move.kind in READS
    ]
    print(f"{language} near misses: {len(wrong)} false positives of {len(phrases)}")
    assert wrong == []


def test_the_corpus_holds_no_phrase_twice_and_no_phrase_in_two_moves():
    for language in LANGS:
        seen: dict[str, str] = {}
        for kind, phrases in corpus(language).items():
            for text in phrases:
                assert text not in seen, (language, text, seen.get(text), kind)
                seen[text] = kind
