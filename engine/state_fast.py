"""The common shapes of `engine.state._apply`, read without its generality.

A long reply holds thousands of effects and nearly all are a whole-number step or a set on a
number, a set or append on a string, a set or toggle on a boolean, a push or merge on a json
variable, or a step or set at an existing slot inside one. Each reader here gives exactly what
`_apply` gives for its shape and answers `SLOW` for anything else (a missing slot, a coercion,
an unusual operation name, a float), so `_apply` stays the one definition of the operations;
`tests/engine/test_directive_fastpath.py` compares the two over generated effects.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from engine.state_json import _merge
from engine.state_records import Change, Effect
from engine.state_values import _IMMUTABLE, _MISSING, _whole, copy_value, same_value
from engine.world import Variable

SLOW: Final[Any] = object()
"""what a reader answers when the effect is not one of its shapes"""

Kind = tuple[str, "Reader", Any, Any]
"""(variable id, the reader for its type, min, max), built by `kind_of`"""

Reader = Callable[[Kind, dict[str, Any], Effect], Any]


def kind_of(variable: Variable | None) -> Kind:
    """What the readers need of a variable, read from the live model (worlds may be edited)."""
    if variable is None:
        return ("", _slow, None, None)
    return (variable.id, READERS.get(variable.type, _slow), variable.min, variable.max)


def _slow(kind: Kind, values: dict[str, Any], effect: Effect) -> Any:
    return SLOW


def _number(kind: Kind, values: dict[str, Any], effect: Effect) -> Any:
    current, value = values.get(kind[0]), effect.value
    if type(current) is not int or type(value) is not int or effect.path:
        return SLOW
    op = effect.operation
    if op == "add":
        new: int | float = current + value
    elif op == "subtract":
        new = current - value
    elif op == "set":
        new = value
    elif op == "multiply":
        new = current * value
    else:
        return SLOW
    vid, _, low, high = kind
    if low is not None and new < low:
        new = _whole(low)
    elif high is not None and new > high:
        new = _whole(high)
    if new == current and type(new) is int:
        return None
    values[vid] = new
    return Change(vid, (), current, new)


def _string(kind: Kind, values: dict[str, Any], effect: Effect) -> Any:
    current, value, op = values.get(kind[0]), effect.value, effect.operation
    if type(current) is not str or type(value) is not str or effect.path:
        return SLOW
    if op == "set":
        new = value
    elif op == "append":
        new = current + value
    else:
        return SLOW
    if new == current:
        return None
    values[kind[0]] = new
    return Change(kind[0], (), current, new)


def _boolean(kind: Kind, values: dict[str, Any], effect: Effect) -> Any:
    current, value, op = values.get(kind[0]), effect.value, effect.operation
    if type(current) is not bool or effect.path:
        return SLOW
    if op == "toggle":
        new = not current
    elif op == "set" and type(value) is bool:
        new = value
    else:
        return SLOW
    if new == current:
        return None
    values[kind[0]] = new
    return Change(kind[0], (), current, new)


def _json(kind: Kind, values: dict[str, Any], effect: Effect) -> Any:
    vid, path = kind[0], effect.path
    parent = values.get(vid)
    if not path:
        op, value = effect.operation, effect.value
        if op == "push" and type(parent) is list:
            parent.append(value if type(value) in _IMMUTABLE else copy_value(value))
            return Change(vid, (len(parent) - 1,), None, value)
        if op == "merge" and type(parent) is dict and type(value) is dict:
            return _merge(vid, (), values, None, vid, parent, value)
        return SLOW
    if type(path) is not tuple:
        return SLOW
    for segment in path[:-1]:
        parent = _child(parent, segment)
        if parent is None or parent is _MISSING:
            return SLOW
    last = path[-1]
    current = _child(parent, last)
    if current is None or current is _MISSING or parent is None:
        return SLOW
    new = _step(effect.operation, current, effect.value)
    if new is SLOW:
        return SLOW
    if same_value(current, new):
        return None
    parent[last] = new
    return Change(vid, path, current, new)


def _child(node: Any, segment: Any) -> Any:
    """``node[segment]`` when it exists as `_apply` would name it; None (or _MISSING) if not."""
    if type(node) is dict:
        return node.get(segment, _MISSING) if type(segment) is str else None
    if type(node) is list and type(segment) is int and 0 <= segment < len(node):
        return node[segment]
    return None


def _step(op: str, current: Any, value: Any) -> Any:
    """A slot's new value for an int step or a scalar set; SLOW for anything else."""
    if op == "set":
        return value if type(value) in _IMMUTABLE and value is not None else SLOW
    if type(current) is not int or type(value) is not int:
        return SLOW
    if op == "add":
        return current + value
    return current - value if op == "subtract" else SLOW


READERS: Final[dict[str, Reader]] = {  # by variable type
    "number": _number,
    "string": _string,
    "boolean": _boolean,
    "json": _json,
}
