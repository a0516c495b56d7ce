"""The words of NPC talk, as data per language (seed 001 "NPC que conversan", "Trato": how each
trust level talks; "en offline hay plantillas"; GAME_MASTER.md decisions 9 and 20).

``engine/gm/lexicon/talk.<lang>.json`` (en, es, zh) holds, in the ``Phrasebook`` shape of
``engine.gm.phrasebook``: the name and manner of each trust level, the offline template of each
talk slot (a key may have a per-level variant, ``c_greeting_hostile``, which ``pick`` prefers),
the talk script and rewrite request the master reads, the reason of each free check, and the word
lists that read what the player said (greeting, insult, flattery…) and what a reply does (asks
who he is, offers an errand, speaks for him). A template missing in a language falls back to
English; word lists do not, since words are a language's own.
"""

from __future__ import annotations

from engine.gm.mentions import mentions
from engine.gm.phrasebook import Phrasebook, load_book
from engine.gm.world import TRUST_LEVELS, TrustLevel


def talkbook(language: str | None) -> Phrasebook:
    """The talk phrasebook of a language tag ("es-ES" → es; English when unknown)."""
    return load_book("talk", language)


def pick(book: Phrasebook, key: str, level: TrustLevel | None = None) -> str:
    """The template key to use: ``key_<level>`` when the language has it, else ``key``."""
    if level is not None and book.has(f"{key}_{level}"):
        return f"{key}_{level}"
    return key


def spaced(book: Phrasebook) -> bool:
    return book.language != "zh"


def says_any(book: Phrasebook, text: str, words: str) -> bool:
    """Whether ``text`` holds one of the phrases of the word list ``words``."""
    gap = spaced(book)
    return any(mentions(text, phrase, gap) for phrase in book.list(words))


def found(book: Phrasebook, text: str, words: str) -> list[str]:
    """The phrases of ``words`` that ``text`` holds."""
    gap = spaced(book)
    return [phrase for phrase in book.list(words) if mentions(text, phrase, gap)]


def level_name(level: TrustLevel, language: str | None) -> str:
    return talkbook(language).t(f"level_{level}")


def tone(level: TrustLevel, language: str | None) -> str:
    """How an NPC at ``level`` talks (seed 001's table), in ``language``."""
    return talkbook(language).t(f"tone_{level}")


def tones(language: str | None) -> list[tuple[TrustLevel, str, str]]:
    """Every level, low to high: (level, its name, how the NPC talks)."""
    return [(lv, level_name(lv, language), tone(lv, language)) for lv in TRUST_LEVELS]
