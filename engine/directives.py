"""Directives in the AI's reply (seed 000 "Sintaxis de directivas", "El formato JSON Patch", "Cómo
procesa el motor la salida de la IA"; seed 002 "指令语法", "音频指令").

`extract_directives` runs the six steps of seed 000 over a finished reply: (1) thinking tags are
stripped, (2) ``<UpdateVariable><JSONPatch>`` blocks become effects, (3) ``[audio: …]`` directives
become cues, (4) directives with JSON values and (5) standard directives become effects, and (6)
the text is cleaned. It reads the reply once, left to right, with the lexical rules of
`engine.stream_filter` (where a directive starts and ends, how the text is tidied), which is
why `StreamFilter` shows exactly the text that `parse_reply` returns. Effects keep the seed's
order: patches first, then JSON-valued directives, then standard ones, each in reply order.

Decisions the seeds leave open, taken here:

- ``[var: delete]`` with nothing after it "degrades silently to an implicit set" (seed 000): the
  value set is the word itself, ``"delete"``, exactly as ``[var: delete]`` would read with no
  operation. A string or json variable becomes ``"delete"``; a number or boolean refuses it, so
  the directive is skipped with the reason.
- Values: ``"…"`` is a JSON string (a string whose inside is not valid JSON but that ends in a
  quote is taken verbatim), numbers are numbers, ``true false null`` (any case) are literals,
  ``{…}``/``[…]`` must be valid JSON (NaN and Infinity are refused) and anything else is bare text,
  so ``[mood: happy]`` sets "happy". ``toggle`` ignores a value; the other operations need one.
- Shorthand needs a number: ``[health: -5]`` subtracts, ``[health: set -10]`` sets -10, and
  ``[health: -5 hp]`` is an implicit set of the text "-5 hp" (refused by a number variable).
- Dot paths: the shortest dot-separated prefix that names a variable (by id or display name) is
  the variable, the rest is the path; numeric segments are array indexes.
- An ``[audio: …]`` directive is always removed from the text; an unknown track or action is
  skipped with the reason. A bracket that names no variable stays in the text; when its head
  looks like a variable id it is also listed in ``skipped`` (``unknown variable``) for debugging.
- JSON Patch: ``replace`` sets, ``delta`` adds (negative subtracts), ``insert`` (and RFC ``add``)
  adds a key or inserts into an array at an index (``-`` appends), ``remove`` deletes a key or an
  index. Paths are RFC 6901 pointers relative to ``target`` ("" is the target itself); without
  ``target`` the first segment names the variable. A path without a leading ``/`` is read as a
  dot path. An unterminated block is still parsed, then removed to the end of the reply.

The pass itself is `engine.directive_extractor`; bodies, audio and JSON Patch are read by
`engine.directive_bodies`, `engine.directive_audio` and `engine.directive_patches`; the records
it yields live in `engine.directive_results`. Import them from here.
"""

from __future__ import annotations

from typing import Any

from engine.directive_extractor import _Extractor
from engine.directive_results import AudioCue, Extraction, ParseResult
from engine.state import apply_effects, copy_value
from engine.stream_filter import StreamFilter
from engine.world import WorldDefinition

__all__ = [
    "AudioCue",
    "Extraction",
    "ParseResult",
    "StreamFilter",
    "extract_directives",
    "parse_reply",
]


def parse_reply(
    world: WorldDefinition, text: str, state: dict[str, Any] | None = None
) -> ParseResult:
    """Extract the directives of a reply and apply them to a copy of ``state``.

    Variables missing from ``state`` start at their default value; ``state`` itself is never
    modified and shares nothing with the result. Malformed directives are listed in
    ``skipped``; nothing raises.
    """
    extraction = extract_directives(world, text)
    values = {key: copy_value(item) for key, item in state.items()} if state else {}
    for variable in world.variables:
        if variable.id not in values:
            values[variable.id] = copy_value(variable.default_value)
    changes, refused = apply_effects(world, values, extraction.effects)
    return ParseResult(
        text=extraction.text,
        state=values,
        audio=extraction.audio,
        effects=extraction.effects,
        skipped=extraction.skipped + refused,
        changes=changes,
    )


def extract_directives(world: WorldDefinition, text: str) -> Extraction:
    """Take a reply apart without applying anything (steps 1-6 of seed 000); never raises."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    return _Extractor(world, text).run()
