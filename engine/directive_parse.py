"""The batch parse of a finished reply, apart from `engine.directives` (which re-exports it).

It lives in its own module so that `engine.stream_filter` can offer `StreamFilter.result` without
importing `engine.directives`, which itself re-exports the `StreamFilter`: the dependency then runs
one way (directives → stream_filter → directive_parse).
"""

from __future__ import annotations

from typing import Any

from engine.directive_extractor import _Extractor
from engine.directive_results import Extraction, ParseResult
from engine.state import apply_effects, copy_value
from engine.world import WorldDefinition

__all__ = ["extract_directives", "parse_reply"]


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
