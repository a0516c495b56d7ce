"""What operations produce and consume (seed 002 "所有操作"): `Change`, `Skipped`, `Effect`.

Parsers, rules, reactions and the turn all pass these around without applying anything, so they
live apart from the operations of `engine.state` (which re-exports them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

Path = tuple[str | int, ...]


class Change:
    """One slot of the state that changed, with its value before and after.

    A slotted class with read-only properties rather than a frozen dataclass like the other
    records: a reply builds thousands, and a frozen dataclass's ``__init__`` costs a call per
    field, compiled or not (`engine.native`). It is as immutable, and compares, hashes and
    prints as that dataclass did.
    """

    __slots__ = ("_new", "_old", "_path", "_variable_id")

    def __init__(self, variable_id: str, path: Path, old: Any, new: Any) -> None:
        self._variable_id = variable_id
        self._path = path
        self._old = old
        self._new = new

    @property
    def variable_id(self) -> str:
        return self._variable_id

    @property
    def path(self) -> Path:
        return self._path

    @property
    def old(self) -> Any:
        return self._old

    @property
    def new(self) -> Any:
        return self._new

    def _fields(self) -> tuple[str, Path, Any, Any]:
        return (self._variable_id, self._path, self._old, self._new)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Change):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"Change(variable_id={self._variable_id!r}, path={self._path!r}, "
            f"old={self._old!r}, new={self._new!r})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "variableId": self.variable_id,
            "path": list(self.path),
            "old": self.old,
            "new": self.new,
        }


@dataclass(frozen=True, slots=True)
class Skipped:
    """A directive or operation that was not applied, and why."""

    source: str
    reason: str

    def __init__(self, source: str, reason: str) -> None:
        _SKIPPED_SETTERS[0](self, source)
        _SKIPPED_SETTERS[1](self, reason)

    def to_dict(self) -> dict[str, str]:
        return {"directive": self.source, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Effect:
    """An operation extracted from the AI's reply, not yet applied."""

    variable_id: str
    path: Path
    operation: str
    value: Any
    source: str = ""

    def __init__(
        self, variable_id: str, path: Path, operation: str, value: Any, source: str = ""
    ) -> None:
        setters = _EFFECT_SETTERS  # see `slot_setters`
        setters[0](self, variable_id)
        setters[1](self, path)
        setters[2](self, operation)
        setters[3](self, value)
        setters[4](self, source)

    def to_dict(self) -> dict[str, Any]:
        return {
            "variableId": self.variable_id,
            "path": list(self.path),
            "operation": self.operation,
            "value": self.value,
        }


Setter = Callable[[Any, Any], None]


def slot_setters(cls: type) -> tuple[Setter, ...]:
    """The slot descriptors' setters of a frozen, slotted dataclass, in field order.

    A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``,
    about three times slower than setting the slots directly; the records built once per
    directive define their own ``__init__`` with these. Instances stay immutable.
    """
    return tuple(getattr(cls, f.name).__set__ for f in fields(cls))


_SKIPPED_SETTERS = slot_setters(Skipped)
_EFFECT_SETTERS = slot_setters(Effect)
