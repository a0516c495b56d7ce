"""What the tool-calling master is told, in the world's language (seed 001 "El contexto: poco y
justo", "La parte fija va cacheada"; decisions 9, 13 and 15).

``engine/gm/lexicon/brief.<lang>.json`` (en, es, zh) holds the master brief, the short rule
sheet, the turn message, and the engine's notes inside the loop: the nudge to close, the tool
cap, a call that was not run, a narration the closure check rejected (with each rule's reason).
The brief and the rules are the fixed part of every request: byte-stable for a world, so they
sit above the cache breakpoint with the tool schemas. The SRD basics (``sheet``) are not in it
since issue 37 §4: the master reads them with ``lookup_rule``, a small model's context is short.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.gm.words import LANGUAGES, LEXICON_DIR
from engine.world import Settings

# A master call's output is a few tool calls or one narration (1,200 characters at most): a
# world's ``maxTokens`` (12,000 by default, sized for plain replies) would let a slow local
# model run on for minutes (issue 37 §4). Smaller world values still win.
MASTER_OUTPUT_TOKENS = 1024


def master_settings(settings: Settings) -> Settings:
    """A world's sampling settings for a master request: ``maxTokens`` capped (see above)."""
    cap = min(settings.max_tokens, MASTER_OUTPUT_TOKENS)
    return settings.model_copy(update={"max_tokens": cap})


@dataclass(frozen=True)
class Brief:
    language: str
    data: Mapping[str, Any] = field(repr=False)

    def t(self, key: str, **values: Any) -> str:
        return str(self.data[key]).format(**values)

    def fixed(self, cap: int, *, sheet: bool = False) -> str:
        """The master brief and the rules: the cached fixed part of every request. The SRD
        basics are read by reference (``lookup_rule``, issue 37 §4) unless ``sheet`` inlines
        them, as the brief did before (``bench/gm.py`` measures both)."""
        lines = [*self.data["sheet"], *self.data["rules"]] if sheet else self.data["rules"]
        rules = "\n".join(lines).format(cap=cap)
        return "\n".join(self.data["brief"]) + "\n\n" + rules

    def turn(self, name: str, ident: str, context: str, action: str) -> str:
        """The turn's message: the perceived scene, then the action."""
        return self.t("turn", name=name, id=ident, context=context, action=action)

    def reasons(self, codes: Sequence[str]) -> str:
        """Each rejected closure rule, said so the master can fix its narration."""
        table: Mapping[str, str] = self.data["violations"]
        return "; ".join(table.get(code, code) for code in codes)


@lru_cache(maxsize=len(LANGUAGES))
def brief(language: str | None) -> Brief:
    """The brief in ``language``, English when it is not one of en, es, zh."""
    code = (language or "en").split("-")[0].lower()
    code = code if code in LANGUAGES else "en"
    path = LEXICON_DIR / f"brief.{code}.json"
    return Brief(code, json.loads(path.read_text(encoding="utf-8")))
