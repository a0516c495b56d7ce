"""A world's noun inside an engine sentence (issue 33 §3: "You take coil of rope" was a slip).

``definite`` gives the noun with the definite article of the sentence's language: English "the
coil of rope", Spanish "la cuerda" / "el farol" (the gender read from the word's ending, with the
exceptions of ``articles`` in ``master.es.json``), Chinese the bare noun. Only when the world is
written in that language: a noun of another language, a proper name (capitalised: "Greta's
ledger") or a noun that already has its article is given as it is.
"""

from __future__ import annotations

from engine.gm.phrasebook import language_code, phrasebook

_ARTICLES = {
    "en": ("the", "a", "an", "some", "this", "that", "these", "those"),
    "es": ("el", "la", "los", "las", "un", "una", "unos", "unas", "este", "esta", "esa", "ese"),
}


def definite(name: str, language: str | None, world_language: str | None) -> str:
    """``name`` with its definite article in ``language`` (see the module)."""
    lang = language_code(language)
    words = name.split()
    if lang != language_code(world_language) or not words or lang not in _ARTICLES:
        return name
    if words[0][:1].isupper() or words[0].casefold() in _ARTICLES[lang]:
        return name
    if lang == "en":
        return f"the {name}"
    return phrasebook(lang).trade_name(name)  # "{article} {noun}", the article by the ending
