"""Finding a variable by id or display name (seed 002 "指令语法"), as directive heads name it.

The index is built once per world and shared by the batch parser and the stream filter, so it
lives apart from the operations of `engine.state` (which re-exports it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from engine.world import Variable, WorldDefinition


@dataclass(frozen=True, slots=True)
class NameIndex:
    """Casefolded ids and display names of a world's variables, for directive heads."""

    ids: dict[str, str]
    """casefolded id or display name → variable id (ids win over names)"""
    prefixes: frozenset[str]
    """every prefix of every key, so a stream can tell early that ``[Chapt`` names nothing"""
    memo: dict[str, Any]
    """what directive heads resolved to (filled by `engine.stream_filter.resolve_head`)"""


_INDEX_CACHE: Final[dict[int, tuple[WorldDefinition, int, int, NameIndex]]] = {}
_INDEX_CACHE_SIZE: Final = 64


def name_key(name: str) -> str:
    """The form in which ids and display names are compared: stripped and casefolded."""
    return name.strip().casefold()


def name_index(world: WorldDefinition) -> NameIndex:
    """The world's `NameIndex`, built once per world object (worlds are not edited in place)."""
    variables = world.variables
    hit = _INDEX_CACHE.get(id(world))
    if hit is not None and hit[0] is world and hit[1] == id(variables) and hit[2] == len(variables):
        return hit[3]
    ids: dict[str, str] = {}
    for variable in variables:
        if variable.name.strip():
            ids.setdefault(name_key(variable.name), variable.id)
    for variable in variables:
        ids[name_key(variable.id)] = variable.id
    prefixes = frozenset(key[:n] for key in ids for n in range(len(key) + 1))
    index = NameIndex(ids=ids, prefixes=prefixes, memo={})
    if len(_INDEX_CACHE) >= _INDEX_CACHE_SIZE:
        _INDEX_CACHE.pop(next(iter(_INDEX_CACHE)))
    _INDEX_CACHE[id(world)] = (world, id(variables), len(variables), index)
    return index


def resolve_variable(world: WorldDefinition, name: str) -> Variable | None:
    """Find a variable by id, else by display name (case-insensitive); None when nothing fits."""
    variable = world.variables_by_id.get(name)
    if variable is not None:
        return variable
    variable_id = name_index(world).ids.get(name_key(name))
    return world.variables_by_id.get(variable_id) if variable_id else None
