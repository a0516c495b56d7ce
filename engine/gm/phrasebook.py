"""The tool-calling master's words, as data per language (seed 001 "Las tools", "Comprobación
del cierre", "Acciones sugeridas"; GAME_MASTER.md decisions 9 and 15).

``engine/gm/lexicon/master.<lang>.json`` (en, es, zh) holds what the tools, the closure check
and the suggestions say and read: the narratable error of every tool, the event and "done"
lines of what a tool applied, the templated fallback closure, the word lists each closure rule
looks for (dying, time passing, a deal closing, success and failure…) and the suggestion
tables by class, trait and trade. Kept apart from the engine moves' lexicon so that each file
stays one concern; a text key missing in a language falls back to English.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.gm.words import LANGUAGES, LEXICON_DIR


@dataclass(frozen=True)
class Phrasebook:
    language: str
    templates: Mapping[str, str] = field(repr=False)
    words: Mapping[str, tuple[str, ...]] = field(repr=False)
    tables: Mapping[str, Mapping[str, Any]] = field(repr=False)

    def t(self, key: str, **values: Any) -> str:
        """Render a template; a placeholder without a value stays as written."""
        return self.templates[key].format_map(_Keep(values))

    def has(self, key: str) -> bool:
        return key in self.templates

    def list(self, key: str) -> tuple[str, ...]:
        """A word list (closure rules, suggestions); empty when the language has none."""
        return self.words.get(key, ())

    def table(self, key: str) -> Mapping[str, Any]:
        return self.tables.get(key, {})

    def trade_name(self, trade: str) -> str:
        """How to name someone by trade ("the innkeeper", "la tabernera", "酒馆老板娘")."""
        return self.t("by_trade", trade=trade, article=self._article(trade))

    def _article(self, trade: str) -> str:
        articles = self.table("articles")
        if not articles or not trade.split():
            return ""
        word = trade.split()[0].casefold()
        feminine = any(word.endswith(end) for end in articles.get("feminine_endings", []))
        feminine = feminine and word not in articles.get("masculine_words", [])
        feminine = feminine or word in articles.get("feminine_words", [])  # "la llave"
        return str(articles["feminine" if feminine else "masculine"])

    def tidy(self, text: str) -> str:
        """The language's contractions ("a el" → "al") and a capital to start with."""
        for pattern, replacement in self.table("contractions").items():
            text = re.sub(pattern, replacement, text)
        return text[:1].upper() + text[1:]


class _Keep(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def language_code(language: str | None) -> str:
    """ "es-ES" → "es"; English for a language without a phrasebook."""
    code = (language or "en").lower().replace("_", "-").split("-")[0]
    return code if code in LANGUAGES else "en"


@lru_cache(maxsize=32)
def load_book(kind: str, language: str | None) -> Phrasebook:
    """``lexicon/<kind>.<lang>.json`` as a phrasebook of a language tag ("es-ES" → es, English
    when unknown), its missing templates taken from English; word lists are not."""
    code = language_code(language)
    data = _load(kind, code)
    base = _load(kind, "en") if code != "en" else data
    templates = {**base["templates"], **data["templates"]}
    words = {k: tuple(v) for k, v in data.get("words", {}).items()}
    return Phrasebook(code, templates, words, data.get("tables", {}))


def phrasebook(language: str | None) -> Phrasebook:
    """The master's phrasebook (``master.<lang>.json``)."""
    return load_book("master", language)


def _load(kind: str, code: str) -> dict[str, Any]:
    path = LEXICON_DIR / f"{kind}.{code}.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))
