"""What operations produce and consume (seed 002 "所有操作"): `Change`, `Skipped`, `Effect`.

Parsers, rules, reactions and the turn all pass these around without applying anything, so they
live apart from the operations of `engine.state` (which re-exports them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Change:
    """One slot of the state that changed, with its value before and after."""

    variable_id: str
    path: Path
    old: Any
    new: Any

    def __init__(self, variable_id: str, path: Path, old: Any, new: Any) -> None:
        setters = _CHANGE_SETTERS  # see `slot_setters`
        setters[0](self, variable_id)
        setters[1](self, path)
        setters[2](self, old)
        setters[3](self, new)

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


_CHANGE_SETTERS = slot_setters(Change)
_SKIPPED_SETTERS = slot_setters(Skipped)
_EFFECT_SETTERS = slot_setters(Effect)
