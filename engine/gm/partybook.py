"""The words of multiplayer, as data per language (seed 001 "Multijugador"; issue 12 §4;
GAME_MASTER.md decision 9).

``engine/gm/lexicon/party.<lang>.json`` (en, es, zh) holds, in the ``Phrasebook`` shape of
``engine.gm.phrasebook``: what a character hears of a loud event elsewhere ("You hear a fight
nearby."), what the others present see of a whisper, the answers of the one-at-a-time rule
(``busy``, ``joined``, ``no_conversation``) and the word lists that read a join or a whisper.
A template missing in a language falls back to English; word lists do not.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from engine.gm.phrasebook import Phrasebook, language_code
from engine.gm.words import LANGUAGES, LEXICON_DIR


@lru_cache(maxsize=len(LANGUAGES))
def partybook(language: str | None) -> Phrasebook:
    """The multiplayer phrasebook of a language tag ("es-ES" → es; English when unknown)."""
    code = language_code(language)
    data = _load(code)
    base = _load("en") if code != "en" else data
    templates = {**base["templates"], **data["templates"]}
    words = {k: tuple(v) for k, v in data.get("words", {}).items()}
    return Phrasebook(code, templates, words, data.get("tables", {}))


def _load(code: str) -> dict[str, Any]:
    path = LEXICON_DIR / f"party.{code}.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))
