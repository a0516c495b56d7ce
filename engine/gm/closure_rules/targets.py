"""What a tool call was about, as the entities a narration can mention (issue 34 §1: "the turn's
tool calls and their results").

A call names things by id or by words ("lantern", "me", "north", "la pista de Marta"): each
argument that names something becomes the world entities it stands for, so a rule can ask
whether an event of the narration is about the same item, clue, place or person.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.gm.closure_rules.entities import YOU, Ref, index
from engine.gm.closure_rules.tokens import tokenize
from engine.gm.mentions import fold
from engine.gm.scene import Scene
from engine.gm.tools import ToolCall
from engine.gm.tools.refs import SELF
from engine.gm.words import lexicon

OBJECT_KEYS = (
    "item",
    "npc",
    "target",
    "to",
    "who",
    "clue",
    "quest",
    "resource",
    "from",
    "with",
    "shop",
    "debtor",
    "creditor",
    "weapon",
    "where",
    "character",
)


def targets(call: ToolCall, scene: Scene, keys: Iterable[str] = OBJECT_KEYS) -> set[Ref]:
    """The entities the call's arguments name (``keys`` only)."""
    out: set[Ref] = set()
    for key in keys:
        value = call.arguments.get(key)
        for text in _strings([value]):
            out |= ref_of(text, scene)
    return out


def ref_of(text: str, scene: Scene) -> set[Ref]:
    """An argument's entities: an id, "me", a direction from here, or names found in it."""
    gm, value = scene.gm, text.strip()
    if not value:
        return set()
    if fold(value) in SELF or value == scene.character_id:
        return {YOU}
    by_id = _by_id(scene, value)
    if by_id is not None:
        return {by_id}
    way = _direction(scene, value)
    if way is not None:
        return {Ref("place", way)}
    language = scene.lex.language
    found: set[Ref] = set()
    for code in dict.fromkeys((language, "en")):
        matcher = index(gm, code).matcher
        hits = matcher.scan(value, tokenize(value, code))
        for key in hits:
            kind, _, ident = key.partition(":")
            found.add(Ref(kind, ident))
    return found


def _by_id(scene: Scene, value: str) -> Ref | None:
    gm = scene.gm
    tables: tuple[tuple[str, dict[str, Any]], ...] = (
        ("item", gm.items_by_id),
        ("npc", gm.npcs_by_id),
        ("pc", gm.characters_by_id),
        ("place", gm.locations_by_id),
        ("clue", gm.clues_by_id),
        ("quest", gm.quests_by_id),
    )
    for kind, table in tables:
        if value in table:
            return YOU if kind == "pc" and value == scene.character_id else Ref(kind, value)
    return None


def _direction(scene: Scene, value: str) -> str | None:
    for code in dict.fromkeys((scene.lex.language, "en")):
        for direction, names in lexicon(code).directions.items():
            if fold(value) in (fold(n) for n in (direction, *names)):
                way = next((e for e in scene.exits() if e.direction == direction), None)
                return way.to if way is not None else None
    return None


def _strings(values: Iterable[object]) -> list[str]:
    out: list[str] = []
    for value in values:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            out += _strings(value.values())
        elif isinstance(value, list):
            out += _strings(value)
    return out
