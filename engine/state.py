"""Variable values and the nine operations (seed 002 "所有操作", seed 000 "Las nueve operaciones").

An operation names a variable, an optional path into a json variable and a value. It either
changes one slot of the state (a `Change`), changes nothing (``None``) or does not fit the
variable (a `Skipped` with the reason); it never raises.

Decisions the seeds leave open, taken here:

- ``set`` coerces by variable type. A number variable takes numbers and numeric strings
  (``"5"`` → 5, ``"2.5"`` → 2.5) and refuses anything else; a boolean takes true/false, the strings
  ``true false yes no on off 1 0`` and the numbers 1/0; a string takes text, and numbers or
  booleans as their text (``5`` → ``"5"``, ``true`` → ``"true"``), never objects, arrays or null; a
  json variable takes anything. Inside a json variable (a dot path) values are stored as given.
- Number variables are clamped to ``min``/``max`` after every operation. Arithmetic results are
  rounded to 10 decimals (so 0.1 + 0.2 is 0.3) and whole floats are stored as ints (100 * 0.5 is
  50), so a value renders the same whether it came from ``set 50`` or from arithmetic.
- A missing slot inside a json variable counts as 0 for add/subtract/multiply, false for toggle,
  "" for append, an empty object for merge and an empty array for push; a missing, null or empty
  value takes the container type that merge or push needs (a json variable defaults to ``{}``, and
  ``[inventory: push …]`` must still work on it).
- A dot path creates missing intermediate objects, and only when the operation succeeds. Numeric
  segments index arrays; an index equal to the length (or ``-``) appends.
- ``delete`` takes a key (objects) or an index (arrays, negative counts from the end); deleting
  something that is not there is skipped with the reason. ``insert`` (from JSON Patch) inserts
  into an array at an index or sets an object's key. Operation names are case-insensitive, and
  ``+ - *``, ``replace`` and ``remove`` are accepted as aliases.
- A variable missing from ``values`` is first given its default value.
- A `Change` names the exact slot that changed: for push the new element's index, for delete the
  removed key (``new`` is None), for merge the object itself with ``old``/``new`` holding only the
  merged keys (keys absent before are absent from ``old``). So no operation ever copies a whole
  array or object to describe itself, and a long run of pushes stays linear.
- The value stored is a copy of the operation's value, so effects can be applied to several
  states; ``Change.new`` is the operation's own value (not the stored copy).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any

from engine.world import Variable, WorldDefinition

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


# --- name lookup -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NameIndex:
    """Casefolded ids and display names of a world's variables, for directive heads."""

    ids: dict[str, str]
    """casefolded id or display name → variable id (ids win over names)"""
    prefixes: frozenset[str]
    """every prefix of every key, so a stream can tell early that ``[Chapt`` names nothing"""
    memo: dict[str, Any]
    """what directive heads resolved to (filled by `engine.stream_filter.resolve_head`)"""


_INDEX_CACHE: dict[int, tuple[WorldDefinition, int, int, NameIndex]] = {}
_INDEX_CACHE_SIZE = 64


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


# --- applying ----------------------------------------------------------------------------

OPERATIONS = frozenset(
    {"set", "add", "subtract", "multiply", "toggle", "append", "merge", "push", "delete", "insert"}
)
_OPERATION_NAMES = {name: name for name in OPERATIONS} | {
    "+": "add",
    "-": "subtract",
    "*": "multiply",
    "replace": "set",
    "remove": "delete",
}
_MISSING: Any = object()
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


class _Refused(Exception):
    """An operation that does not fit; carries the reason for `Skipped`."""


def apply_operation(
    world: WorldDefinition,
    values: dict[str, Any],
    variable_id: str,
    operation: str,
    value: Any,
    path: Iterable[str | int] = (),
    source: str = "",
) -> Change | Skipped | None:
    """Apply one operation to ``values`` in place; None when the value did not change.

    An unknown variable or operation, or one that does not fit the value's type, comes back as
    `Skipped` with the reason and leaves the variable's value as it was.
    """
    return _apply(world.variables_by_id, values, variable_id, operation, value, path, source)


def apply_effects(
    world: WorldDefinition, values: dict[str, Any], effects: Iterable[Effect]
) -> tuple[list[Change], list[Skipped]]:
    """Apply effects in order to ``values`` in place; return what changed and what was skipped."""
    variables = world.variables_by_id
    changes: list[Change] = []
    skipped: list[Skipped] = []
    for effect in effects:
        result = _apply(
            variables,
            values,
            effect.variable_id,
            effect.operation,
            effect.value,
            effect.path,
            effect.source,
        )
        if result is None:
            continue
        if type(result) is Change:
            changes.append(result)
        else:
            skipped.append(result)  # type: ignore[arg-type]
    return changes, skipped


def _apply(
    variables: dict[str, Variable],
    values: dict[str, Any],
    variable_id: str,
    operation: str,
    value: Any,
    path: Iterable[str | int],
    source: str,
) -> Change | Skipped | None:
    variable = variables.get(variable_id)
    op = _OPERATION_NAMES.get(operation) if type(operation) is str else None
    if op is None and isinstance(operation, str):
        op = _OPERATION_NAMES.get(operation.strip().lower())
    if type(path) is not tuple:
        path = tuple(path)
    if variable is None or op is None:
        return Skipped(
            source or _describe(variable_id, path, operation, value),
            f"unknown variable '{variable_id}'"
            if variable is None
            else f"unknown operation '{operation}'",
        )
    vid = variable.id
    if vid not in values:
        values[vid] = copy_value(variable.default_value)
    kind = variable.type
    if kind == "number" and not path and type(value) is int:  # the commonest case, inline
        current = values[vid]
        if type(current) is int and (op == "add" or op == "subtract" or op == "set"):
            new: float = (
                current + value if op == "add" else current - value if op == "subtract" else value
            )
            low, high = variable.min, variable.max
            if low is not None and new < low:
                new = _whole(low)
            elif high is not None and new > high:
                new = _whole(high)
            if new == current and type(new) is type(current):
                return None
            values[vid] = new
            return Change(vid, (), current, new)
    try:
        if kind == "json":
            return _apply_json(vid, values, path, op, value)
        if path:
            raise _Refused(f"'{vid}' is a {kind} variable; dot paths need a json variable")
        if kind == "number":
            return _apply_number(variable, values, op, value)
        return _apply_typed(variable, values, op, value)
    except _Refused as refused:
        return Skipped(source or _describe(variable_id, path, operation, value), str(refused))
    except RecursionError:
        return Skipped(
            source or _describe(variable_id, path, operation, value), "value is nested too deeply"
        )


def copy_value(value: Any) -> Any:
    """A deep copy of a JSON-like value (dicts and lists copied, scalars shared)."""
    kind = type(value)
    if kind is dict:
        return {
            key: item if type(item) in _IMMUTABLE else copy_value(item)
            for key, item in value.items()
        }
    if kind is list:
        return [item if type(item) in _IMMUTABLE else copy_value(item) for item in value]
    if isinstance(value, dict):
        return {key: copy_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_value(item) for item in value]
    return value


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})  # shared, never copied


def same_value(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1 and "1" is not 1."""
    if a is b:
        return True
    ka, kb = type(a), type(b)
    if ka is bool or kb is bool:
        return ka is kb and a == b
    if ka in (int, float) and kb in (int, float):
        return bool(a == b)
    if ka is not kb:
        return False
    if ka is dict:
        return len(a) == len(b) and all(k in b and same_value(v, b[k]) for k, v in a.items())
    if ka is list:
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


# --- typed roots (number, string, boolean) ------------------------------------------------


def _apply_number(variable: Variable, values: dict[str, Any], op: str, value: Any) -> Change | None:
    vid = variable.id
    current = values[vid]
    new: Any
    if op == "set" or op == "insert":
        new = value if type(value) is int else _number_operand(value)
    elif op == "add" or op == "subtract" or op == "multiply":
        if type(value) is int and type(current) is int:  # the common case, exact
            if op == "add":
                new = current + value
            elif op == "subtract":
                new = current - value
            else:
                new = current * value
        elif type(current) is not int and type(current) is not float:
            raise _Refused(f"current value of '{vid}' is not a number")
        else:
            new = _arithmetic(op, current, _number_operand(value))
    else:
        raise _Refused(f"{op} does not apply to number variable '{vid}'")
    low, high = variable.min, variable.max
    if low is not None and new < low:
        new = _whole(low)
    elif high is not None and new > high:
        new = _whole(high)
    if new == current and type(new) is type(current):
        return None
    values[vid] = new
    return Change(vid, (), current, new)


def _apply_typed(variable: Variable, values: dict[str, Any], op: str, value: Any) -> Change | None:
    """String and boolean variables."""
    vid = variable.id
    current = values[vid]
    new: Any
    if op == "insert":
        op = "set"
    if variable.type == "string":
        if op == "set":
            new = _text_operand(value, op)
        elif op == "append":
            if not isinstance(current, str):
                raise _Refused(f"current value of '{vid}' is not a string")
            new = current + _text_operand(value, op)
        else:
            raise _Refused(f"{op} does not apply to string variable '{vid}'")
    else:
        if op == "set":
            new = _bool_operand(value)
        elif op == "toggle":
            if not isinstance(current, bool):
                raise _Refused(f"current value of '{vid}' is not a boolean")
            new = not current
        else:
            raise _Refused(f"{op} does not apply to boolean variable '{vid}'")
    if type(current) is type(new) and current == new:
        return None
    values[vid] = new
    return Change(vid, (), current, new)


# --- json variables ----------------------------------------------------------------------


def _apply_json(vid: str, values: dict[str, Any], path: Path, op: str, value: Any) -> Change | None:
    """Apply to a json variable: walk to the slot, then let the value's runtime type decide.

    The walk starts at ``values`` itself, so a null variable is created like any missing slot;
    missing intermediates are only created once the operation is known to fit.
    """
    if op == "delete":
        return _delete(vid, path, _reach(values, vid, path), value)
    parent: Any = values
    key: str | int = vid
    chain: list[str | int] | None = None
    walked: list[str | int] = []  # the path with array indexes as ints, object keys as strings
    found: str | int
    slot_key: str | int
    for depth, segment in enumerate(path):
        if type(parent) is dict:
            found = key if isinstance(key, str) else str(key)
            node = parent.get(found, _MISSING)
        else:
            found, node = _lookup(parent, key, vid, path, depth)
        if node is _MISSING or node is None:
            chain = [found, *path[depth:-1]]
            if depth:
                walked.append(found)
            walked.extend(str(part) for part in path[depth:])  # keys of objects to be created
            key = path[-1]
            break
        if depth:
            walked.append(found)
        parent, key = node, segment
    if chain is None:
        if type(parent) is dict:
            slot_key = key if isinstance(key, str) else str(key)
            current = parent.get(slot_key, _MISSING)
        else:
            slot_key, current = _lookup(parent, key, vid, path, len(path))
        if path:
            walked.append(slot_key)
    else:
        current, slot_key = _MISSING, str(key)
    if current is None and op != "set" and op != "insert":
        current = _MISSING
    where: Path = tuple(walked)
    if op == "push" or op == "merge":
        empty = current is _MISSING or (type(current) in (dict, list) and not current)
        if op == "push":
            if not empty and type(current) is not list:
                raise _Refused(f"push does not apply to {_kind(current)} '{_label(vid, path)}'")
            if type(current) is not list:
                current = []
                _store(_create(parent, chain), slot_key, current)
            current.append(value if type(value) in _IMMUTABLE else copy_value(value))
            return Change(vid, (*where, len(current) - 1), None, value)
        if type(value) is not dict:
            raise _Refused(f"merge needs an object, got {_kind(value)}")
        if not empty and type(current) is not dict:
            raise _Refused(f"merge does not apply to {_kind(current)} '{_label(vid, path)}'")
        return _merge(vid, where, parent, chain, slot_key, current, value)
    new = _scalar(op, current, value, vid, path)
    inserting = op == "insert" and type(parent) is list and chain is None
    if current is not _MISSING and not inserting and same_value(current, new):
        return None
    container = _create(parent, chain) if chain else parent
    if inserting:
        container.insert(slot_key, copy_value(new))
        return Change(vid, where, None, new)
    if op == "set" or op == "insert":
        stored = new if type(new) in _IMMUTABLE else copy_value(new)
    else:
        stored = new
    if type(container) is dict:
        container[slot_key] = stored
    else:
        _store(container, slot_key, stored)
    return Change(vid, where, None if current is _MISSING else current, new)


def _lookup(parent: Any, key: str | int, vid: str, path: Path, depth: int) -> tuple[str | int, Any]:
    """``key`` as the container uses it, and ``parent[key]`` or _MISSING.

    ``depth`` segments of ``path`` lead to ``key`` (for messages).
    """
    kind = type(parent)
    if kind is dict or isinstance(parent, dict):
        name = key if type(key) is str else str(key)
        return name, parent.get(name, _MISSING)
    if kind is list or isinstance(parent, list):
        index = _index(key, len(parent), vid, path, depth)
        return index, parent[index] if index < len(parent) else _MISSING
    at = _label(vid, path, max(depth - 1, 0))
    raise _Refused(f"cannot go into {_kind(parent)} '{at}' with '{key}'")


def _index(segment: Any, length: int, vid: str, path: Path, depth: int) -> int:
    """An array index (``length`` or ``-`` appends)."""
    if type(segment) is int and 0 <= segment <= length:
        return segment
    if segment == "-":
        return length
    at = _label(vid, path, max(depth - 1, 0))
    if isinstance(segment, str) and segment.isdigit() and segment.isascii():
        segment = int(segment)
    if type(segment) is not int:
        raise _Refused(f"'{segment}' is not an index into array '{at}'")
    if not 0 <= segment <= length:
        raise _Refused(f"index {segment} is out of range for array '{at}' ({length} items)")
    return segment


def _create(parent: Any, chain: list[str | int] | None) -> Any:
    """Create the missing objects named by ``chain`` under ``parent``; return the last one."""
    if chain:
        for key in chain:
            fresh: dict[str, Any] = {}
            _store(parent, key if type(parent) is list else str(key), fresh)
            parent = fresh
    return parent


def _store(container: Any, key: str | int, item: Any) -> None:
    if type(container) is list or isinstance(container, list):
        assert isinstance(key, int)
        if key == len(container):
            container.append(item)
        else:
            container[key] = item
    else:
        container[key] = item


def _reach(values: dict[str, Any], vid: str, path: Path) -> Any:
    node: Any = values[vid]
    for depth, segment in enumerate(path, 1):
        if node is None:
            break
        node = _lookup(node, segment, vid, path, depth)[1]
        if node is _MISSING:
            node = None
            break
    if node is None:
        raise _Refused(f"'{_label(vid, path)}' does not exist")
    return node


def _scalar(op: str, current: Any, value: Any, vid: str, path: Path) -> Any:
    if op == "set" or op == "insert":
        return value
    if op == "add" or op == "subtract" or op == "multiply":
        if current is _MISSING:
            current = 0
        if type(current) is int and type(value) is int:  # the common case, exact
            if op == "add":
                return current + value
            return current - value if op == "subtract" else current * value
        if not _is_number(current):
            raise _Refused(f"{op} does not apply to {_kind(current)} '{_label(vid, path)}'")
        return _arithmetic(op, current, _number_operand(value))
    if op == "toggle":
        if current is _MISSING:
            current = False
        if not isinstance(current, bool):
            raise _Refused(f"toggle does not apply to {_kind(current)} '{_label(vid, path)}'")
        return not current
    if current is _MISSING:
        current = ""
    if not isinstance(current, str):
        raise _Refused(f"append does not apply to {_kind(current)} '{_label(vid, path)}'")
    return current + _text_operand(value, op)


def _merge(
    vid: str,
    where: Path,
    parent: Any,
    chain: list[str | int] | None,
    slot_key: str | int,
    current: Any,
    value: dict[str, Any],
) -> Change | None:
    target = current if type(current) is dict else {}
    old: dict[str, Any] = {}
    new: dict[str, Any] = {}
    for name, item in value.items():
        if name in target:
            if same_value(target[name], item):
                continue
            old[name] = target[name]
        new[name] = item
    if not new:
        return None
    if target is not current:
        _store(_create(parent, chain), slot_key, target)
    for name, item in new.items():
        target[name] = copy_value(item)
    return Change(vid, where, old, new)


def _delete(vid: str, path: Path, container: Any, key: Any) -> Change:
    if isinstance(key, bool) or key is None or isinstance(key, dict | list):
        raise _Refused(f"delete needs a key or an index, got {_kind(key)}")
    if isinstance(key, float):
        if not key.is_integer():
            raise _Refused(f"delete needs a key or an index, got {key}")
        key = int(key)
    label = _label(vid, path)
    if isinstance(container, dict):
        name = str(key)
        if name not in container:
            raise _Refused(f"'{label}' has no key '{name}'")
        return Change(vid, (*path, name), container.pop(name), None)
    if isinstance(container, list):
        index = key
        if isinstance(index, str):
            text = index.strip()
            if not re.fullmatch(r"-?[0-9]+", text):
                raise _Refused(f"'{key}' is not an index into array '{label}'")
            index = int(text)
        length = len(container)
        if not -length <= index < length:
            raise _Refused(f"index {index} is out of range for array '{label}' ({length} items)")
        if index < 0:
            index += length
        return Change(vid, (*path, index), container.pop(index), None)
    raise _Refused(f"delete does not apply to {_kind(container)} '{label}'")


def _label(vid: str, path: Path, depth: int | None = None) -> str:
    """``vid.a.0.b`` for messages: the variable and the first ``depth`` segments of the path."""
    return ".".join(str(part) for part in (vid, *path[:depth]))


# --- operands ----------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number_operand(value: Any) -> float:
    if _is_number(value):
        if isinstance(value, float) and not math.isfinite(value):
            raise _Refused(f"'{value}' is not a finite number")
        return _whole(value)
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        text = value.strip()
        try:
            number = float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            raise _Refused(f"'{value}' is too large a number") from None
        if isinstance(number, float) and not math.isfinite(number):
            raise _Refused(f"'{value}' is not a finite number")
        return _whole(number)
    raise _Refused(f"{_show(value)} is not a number")


def _arithmetic(op: str, current: float, operand: float) -> float:
    if op == "add":
        result = current + operand
    elif op == "subtract":
        result = current - operand
    else:
        result = current * operand
    if isinstance(result, float):
        if not math.isfinite(result):
            raise _Refused("the result is not a finite number")
        result = round(result, 10)
    return _whole(result)


def _whole(number: float) -> float:
    if isinstance(number, float) and number.is_integer() and abs(number) < 2**53:
        return int(number)
    return number


def _text_operand(value: Any, op: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_number(value):
        return str(_whole(value))
    raise _Refused(f"{op} needs text, got {_kind(value)}")


def _bool_operand(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if _is_number(value) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise _Refused(f"{_show(value)} is not true or false")


def _kind(value: Any) -> str:
    if value is None or value is _MISSING:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(variable_id: str, path: Path, operation: str, value: Any) -> str:
    target = ".".join(str(s) for s in (variable_id, *path))
    return (
        f"[{target}: {operation} {_show(value)}]"
        if value is not None
        else f"[{target}: {operation}]"
    )
