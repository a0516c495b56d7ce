"""The directors' words (seed 003; issue 12 §1): the Game Director's addendum to the master
brief, the Story and Scene Directors' briefs, the turn messages and the memory a revealed
secret leaves, in ``engine/gm/lexicon/directors.<lang>.json``.

The briefs are English with the language to write in named (the model prompt, like the rule
sheet, is read by a model, never by a player); a language file may translate any key, and the
memory lines a player may later read are translated for es and zh. The briefs are the fixed
part of each director's request: byte-stable for a language, so they sit above the cache
breakpoint.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.gm.words import LANGUAGES, LEXICON_DIR


@dataclass(frozen=True)
class DirectorWords:
    language: str
    data: Mapping[str, Any] = field(repr=False)

    def t(self, key: str, **values: Any) -> str:
        return str(self.data[key]).format(**values)

    def brief(self, key: str) -> str:
        """A multi-line brief (``game``, ``story``, ``scene``), the language named."""
        names: Mapping[str, str] = self.data["language_names"]
        return "\n".join(self.data[key]).format(language=names.get(self.language, "English"))


def _load(code: str) -> dict[str, Any]:
    path = LEXICON_DIR / f"directors.{code}.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


@lru_cache(maxsize=len(LANGUAGES))
def words(language: str | None) -> DirectorWords:
    """The words in ``language``, English for what it does not translate (and for a language
    other than en, es, zh)."""
    code = (language or "en").split("-")[0].lower()
    code = code if code in LANGUAGES else "en"
    data = _load("en")
    if code != "en":
        data.update(_load(code))
    return DirectorWords(code, data)
