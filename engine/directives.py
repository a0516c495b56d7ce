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
it yields live in `engine.directive_results`; `parse_reply` and `extract_directives` live in
`engine.directive_parse` (so `engine.stream_filter` need not import this module). Import them
from here.
"""

from __future__ import annotations

from engine.directive_parse import extract_directives, parse_reply
from engine.directive_results import AudioCue, Extraction, ParseResult
from engine.stream_filter import StreamFilter

__all__ = [
    "AudioCue",
    "Extraction",
    "ParseResult",
    "StreamFilter",
    "extract_directives",
    "parse_reply",
]
