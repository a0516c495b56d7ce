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

This module applies operations; the records live in `engine.state_records`, name lookup in
`engine.state_names`, value helpers in `engine.state_values` and json variables in
`engine.state_json`. Every public name of those is importable from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from engine.state_fast import SLOW, Kind, kind_of
from engine.state_json import _apply_json
from engine.state_names import NameIndex as NameIndex
from engine.state_names import name_index as name_index
from engine.state_names import name_key as name_key
from engine.state_names import resolve_variable as resolve_variable
from engine.state_records import Change as Change
from engine.state_records import Effect as Effect
from engine.state_records import Path as Path
from engine.state_records import Setter as Setter
from engine.state_records import Skipped as Skipped
from engine.state_records import slot_setters as slot_setters
from engine.state_values import (
    _arithmetic,
    _bool_operand,
    _number_operand,
    _Refused,
    _show,
    _text_operand,
    _whole,
)
from engine.state_values import copy_value as copy_value
from engine.state_values import same_value as same_value
from engine.world import Variable, WorldDefinition

# --- applying ----------------------------------------------------------------------------

OPERATIONS: Final = frozenset(
    {"set", "add", "subtract", "multiply", "toggle", "append", "merge", "push", "delete", "insert"}
)
_OPERATION_NAMES: Final = {name: name for name in OPERATIONS} | {
    "+": "add",
    "-": "subtract",
    "*": "multiply",
    "replace": "set",
    "remove": "delete",
}


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
    """Apply effects in order to ``values`` in place; return what changed and what was skipped.

    A reply can hold thousands of effects, nearly all of a few plain shapes; `engine.state_fast`
    reads those, with each variable's type looked up once per call, and `_apply` the rest.
    """
    variables = world.variables_by_id
    kinds: dict[str, Kind] = {}
    changes: list[Change] = []
    skipped: list[Skipped] = []
    for effect in effects:
        kind = kinds.get(effect.variable_id)
        if kind is None:
            kind = kinds[effect.variable_id] = kind_of(variables.get(effect.variable_id))
        change = kind[1](kind, values, effect)
        if change is not SLOW:
            if change is not None:
                changes.append(change)
            continue
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
            new: int | float = (
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


def _describe(variable_id: str, path: Path, operation: str, value: Any) -> str:
    target = ".".join(str(s) for s in (variable_id, *path))
    return (
        f"[{target}: {operation} {_show(value)}]"
        if value is not None
        else f"[{target}: {operation}]"
    )
