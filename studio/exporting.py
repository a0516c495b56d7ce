"""A draft exported for SillyTavern: a character card (PNG or JSON, V2 or V3) or World Info.

The engine writes the files (``engine.interop``); this module picks the world's portrait and
names the download. An invalid draft raises WorldValidationError, as every export does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from django.utils.text import slugify

from engine.interop import (
    Gated,
    gated_entries,
    world_to_card,
    world_to_card_png,
    world_to_worldinfo,
)
from engine.interop.png import PNG_SIGNATURE
from engine.world import WorldValidationError
from studio.models import World
from studio.portraits import portrait_png
from studio.worlds import world_to_definition

CardFormat = Literal["png", "json"]
CardSpec = Literal["v2", "v3"]
CARD_FORMATS: tuple[CardFormat, ...] = ("png", "json")
CARD_SPECS: tuple[CardSpec, ...] = ("v2", "v3")


@dataclass(frozen=True)
class Download:
    body: bytes
    filename: str
    content_type: str


def world_portrait(world: World) -> bytes | None:
    """The world's portrait as PNG bytes (studio.portraits writes it), or None: a placeholder is
    drawn then."""
    return portrait_png(world.portrait.name or "")


def card_download(
    world: World, spec: CardSpec = "v2", fmt: CardFormat = "png", gated: Gated = "disable"
) -> Download:
    """The draft as a character card file: PNG with the portrait, or the card JSON.

    ``gated``: the condition-gated entries SillyTavern cannot gate go in switched off
    ("disable", unless the creator chose) or stay out of the book ("omit")."""
    definition = world_to_definition(world)
    name = f"{_stem(world)}.{spec}"
    if fmt == "json":
        return _json(world_to_card(definition, spec, gated), f"{name}.json")
    portrait = world_portrait(world)
    if portrait is not None and not portrait.startswith(PNG_SIGNATURE):
        portrait = None  # a JPEG or WebP avatar cannot carry the card's text chunks
    body = world_to_card_png(definition, spec, portrait=portrait, gated=gated)
    return Download(body, f"{name}.png", "image/png")


def card_gated_names(world: World) -> list[str]:
    """The export report's list: entries whose conditions a card cannot carry to SillyTavern
    (there they would fire on keys alone, their {{macros}} reaching the prompt as text). An
    invalid draft lists none: its export is refused anyway."""
    try:
        return [e.name or e.id for e in gated_entries(world_to_definition(world))]
    except WorldValidationError:
        return []


def worldinfo_download(world: World) -> Download:
    """The draft's lorebook as a SillyTavern World Info file."""
    return _json(world_to_worldinfo(world_to_definition(world)), f"{_stem(world)}.worldinfo.json")


def _json(data: dict[str, Any], filename: str) -> Download:
    body = json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")
    return Download(body, filename, "application/json; charset=utf-8")


def _stem(world: World) -> str:
    return slugify(world.name) or "world"
