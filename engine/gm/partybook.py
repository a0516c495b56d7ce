"""The words of multiplayer, as data per language (seed 001 "Multijugador"; issue 12 §4;
GAME_MASTER.md decision 9).

``engine/gm/lexicon/party.<lang>.json`` (en, es, zh) holds, in the ``Phrasebook`` shape of
``engine.gm.phrasebook``: what a character hears of a loud event elsewhere ("You hear a fight
nearby."), what the others present see of a whisper, the answers of the one-at-a-time rule
(``busy``, ``joined``, ``no_conversation``) and the word lists that read a join or a whisper.
A template missing in a language falls back to English; word lists do not.
"""

from __future__ import annotations

from engine.gm.phrasebook import Phrasebook, load_book


def partybook(language: str | None) -> Phrasebook:
    """The multiplayer phrasebook of a language tag ("es-ES" → es; English when unknown)."""
    return load_book("party", language)
