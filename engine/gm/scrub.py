"""No directive in what a game-master world shows (seed 000 "[health: -15], [gold: +50] … que el
motor elimina antes de que el jugador vea nada"; seed 001 "Motor valida, calcula y aplica cada
cambio"; issue 32 finding 11).

In a plain world the engine applies a bracket directive and removes it before the player reads
(``engine.stream_filter``). In a game-master world the engine owns every number through the
master's tools, so a directive the master writes is never applied: it is dropped. Nothing else
parses the master's text, so without this a ``[gold: +999]`` reached the screen as text.

What counts is the plain worlds' lexical rule (``engine.directive_syntax``) with one change: the
head need not name a declared variable, since here no directive names anything the engine
applies. So every ``[head: body]`` (a head of up to ``MAX_HEAD`` characters without ``[ ] { }
" :`` or a line break, a body closing as a plain world's does) is removed, and so are thinking
and ``<UpdateVariable>`` blocks, the blocks Fabula's own prompts are written in
(``<current-state>``…, ``engine.directive_syntax.ENGINE_BLOCKS``) and a directive the end of the
text cut off (``[health: -1``; issue 37 §5); the text around is tidied as the plain parser tidies
it (``engine.text_tidy``). Text holding none is returned unchanged.

``strip_all`` cleans a tool call's arguments (``engine.gm.tools.execute``: narration, bubbles,
suggestions, memories, hooks, rumours, facts); ``scrub_result`` is the last gate of an action
(``engine.gm.play``): its narration, suggestions, the events it logged and what each character
receives, whatever path wrote them (the loop, the directors, an NPC's rewritten line).
"""

from __future__ import annotations

import re
from typing import Any, Final

from engine.directive_syntax import (
    CLOSE,
    FOUND,
    MAX_HEAD,
    MORE,
    BodyScan,
    close_pattern,
    fallback_close,
    is_stray,
    scan_tag,
)
from engine.gm.result import GMActionResult
from engine.text_tidy import clean_text

_CANDIDATE: Final = re.compile(r"[\[<]")
_HEAD: Final = re.compile(rf'\[[^\[\]{{}}":\n]{{1,{MAX_HEAD}}}:')


def strip_directives(text: str) -> str:
    """``text`` without its directives and thinking blocks, tidied; unchanged when it has none."""
    pieces: list[str] = []
    pos = kept = 0
    while (match := _CANDIDATE.search(text, pos)) is not None:
        start = match.start()
        end = _directive_end(text, start)
        if end < 0:
            pos = start + 1
            continue
        pieces.append(text[kept:start])
        pos = kept = end
    if not pieces:
        return text
    pieces.append(text[kept:])
    return clean_text(pieces)


def _directive_end(text: str, start: int) -> int:
    """Where the directive or block opening at ``start`` ends; -1 when none opens there."""
    if text[start] == "<":
        status, tag = scan_tag(text, start, True)
        if status != FOUND or tag is None:
            return -1
        if is_stray(tag):  # an engine block's closing tag alone
            return tag.end()
        done = close_pattern(tag.group(1)).search(text, tag.end())
        return done.end() if done is not None else len(text)
    head = _HEAD.match(text, start)
    if head is None or not text[start + 1 : head.end() - 1].strip():
        return -1
    status, index = BodyScan().scan(text, head.end(), True)
    if status != CLOSE:
        end = fallback_close(text, head.end(), min(index, len(text)))
        if end < 0 and status == MORE:  # cut off by the end of the text: "[health: -1"
            return len(text)
        index = end
    return index + 1 if index >= 0 else -1


def strip_all(value: Any) -> Any:
    """A JSON value with every string in it stripped of directives."""
    if isinstance(value, str):
        return strip_directives(value)
    if isinstance(value, dict):
        return {key: strip_all(item) for key, item in value.items()}
    if isinstance(value, list):
        return [strip_all(item) for item in value]
    return value


def scrub_result(result: GMActionResult, first_event: int) -> None:
    """Strip the directives from what the action shows: its narration, suggestions, what each
    character receives, the Story Director's line, and the events it logged (ids from
    ``first_event``: made by this action alone, so no earlier state shares them)."""
    result.narration = strip_directives(result.narration)
    result.suggestions = [s for s in map(strip_directives, result.suggestions) if s]
    result.delivered_to = {k: strip_directives(v) for k, v in result.delivered_to.items()}
    directors = result.changes.get("directors")
    if isinstance(directors, dict) and isinstance(directors.get("ooc"), str):
        directors["ooc"] = strip_directives(directors["ooc"])
    gm = result.state.gm
    fresh = [e for e in gm.events if e.id >= first_event] if gm is not None else []
    for event in {id(e): e for e in [*fresh, *result.events]}.values():
        if event.id >= first_event:
            event.text = strip_directives(event.text)
            event.data = strip_all(event.data)
