"""Macros: ``{{placeholder}}`` text in entries, replaced at prompt time (seed 000 "Macros", seed
004 "宏").

Built-ins (names match case-insensitively, spaces inside the braces are ignored):

- identity: ``char`` (the context's char, else the first enabled ``character`` entry's name,
  else the world's name), ``user`` (the active persona's name first, as seeds 000 and 004 say,
  then the context's user, then ``settings.playerName``, then "Player" as seed 004 ends)
- persona: ``persona`` (the non-empty fields, one labelled line each), ``persona_name``,
  ``persona_appearance``, ``persona_personality``, ``persona_backstory``
- state: ``turnCount``, ``model``, ``lastMessage``, ``lastUserMessage``, ``lastCharMessage``
- randomness: ``random::a::b`` (the context's rng; without one, a ``Random`` seeded with the
  context's seed and turn, so it re-rolls each turn; ``engine.api`` passes a fresh rng when the
  caller pins neither, so it re-rolls on every expansion as seed 000 says), ``pick::a::b`` (a
  crc32 of the seed, the turn, the macro's offset in the text and its options: stable within a
  turn),
  ``roll::NdS+M`` (also ``NdS``, ``NdS-M``, ``dS``, ``S``)
- time (only when the context carries ``now``; otherwise they stay literal, and
  ``engine.api`` fills in the wall clock): ``time`` (HH:MM), ``date`` ("May 13, 2026"),
  ``weekday`` ("Wednesday"), ``isodate``, ``isotime`` (HH:MM:SS), ``idle`` ("5 minutes", from
  ``idle_seconds``); ``date``, ``weekday`` and ``idle`` follow the world's ``language`` for
  es, fr, de, pt, zh and ja ("13/5/2026", "miércoles", "5 minutos", as seed 000 shows)
- utilities: ``{{// comment}}`` vanishes, ``{{trim}}`` removes the whitespace around it

Any other name equal to a variable id (``{{player-health}}``) renders the variable's current
value: the state's, else its default; JSON variables as compact JSON, booleans as true/false,
whole floats as integers. Unknown macros, and macros whose handler fails, stay literal.

One regex pass over the text; macros do not nest (``{{random::{{char}}::x}}`` expands the inner
``{{char}}`` only), and a macro's output is never expanded again, so a variable or a chat
message holding ``{{...}}`` cannot inject macros.

This module runs the expansion; the handlers and ``MACROS`` are ``engine.macro_handlers``', the
context types ``engine.macro_context``', the renderings ``engine.macro_formats``' and the
per-language dates and durations ``engine.time_formats``' (all importable from here).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from engine.macro_context import MacroContext as MacroContext
from engine.macro_context import MacroEnv as MacroEnv
from engine.macro_context import MacroFn as MacroFn
from engine.macro_formats import character_name as character_name
from engine.macro_formats import format_persona as format_persona
from engine.macro_formats import format_value as format_value
from engine.macro_formats import roll_dice as roll_dice
from engine.macro_formats import user_name as user_name
from engine.macro_handlers import MACROS as MACROS
from engine.macro_handlers import TRIM, variable_text
from engine.session import SessionState
from engine.time_formats import format_date as format_date
from engine.time_formats import format_duration as format_duration
from engine.time_formats import format_weekday as format_weekday
from engine.time_formats import locale_of as locale_of
from engine.world import WorldDefinition

_MACRO = re.compile(r"\{\{(?!\{)([^{}]*(?:(?:\{(?!\{)|\}(?!\}))[^{}]*)*)\}\}")
_TRIM_AROUND = re.compile(r"\s*" + re.escape(TRIM) + r"\s*")


def expand_macros(
    world: WorldDefinition | None,
    text: str,
    state: Mapping[str, Any] | SessionState | None = None,
    context: MacroContext | None = None,
) -> str:
    """Replace every macro in ``text``; unknown or failing macros are left exactly as written."""
    if "{{" not in text:
        return text
    ctx = context or MacroContext()
    values: Mapping[str, Any] = {}
    if isinstance(state, SessionState):
        values = state.values
    elif state is not None:
        values = state
    rng = ctx.rng or random.Random(f"{ctx.seed or 0}:{ctx.turn}")
    env = MacroEnv(world=world, values=values, context=ctx, rng=rng)
    table = _lookup_table()
    trimmed = False

    def replace(match: re.Match[str]) -> str:
        nonlocal trimmed
        body = match.group(1).strip()
        if body.startswith("//"):
            return ""
        name, *args = body.split("::")
        key = name.strip()
        try:
            handler = table.get(key.lower())
            if handler is not None:
                out = handler(env, args, match.start())
            elif not args:
                out = variable_text(env, key)
            else:
                out = None
        except Exception:  # a broken macro must never break the prompt
            out = None
        if out is TRIM:
            trimmed = True
        return match.group(0) if out is None else out

    result = _MACRO.sub(replace, text)
    if trimmed:
        result = _TRIM_AROUND.sub("", result)
    return result


_table_cache: dict[str, MacroFn] = {}
_table_source: list[tuple[str, MacroFn]] = []


def _lookup_table() -> dict[str, MacroFn]:
    """MACROS keyed by lower-case name, rebuilt only when the registry changes."""
    global _table_cache
    current = list(MACROS.items())
    if current != _table_source:
        _table_source[:] = current
        _table_cache = {name.lower(): fn for name, fn in current}
    return _table_cache
