"""Operations on json variables (seed 002 "所有操作"): walking a dot path to one slot.

The decisions on paths (missing slots, created intermediates, array indexes, delete and insert)
are listed in `engine.state`'s docstring; the walk is long enough to want its own module.
"""

from __future__ import annotations

import re
from typing import Any

from engine.state_records import Change, Path
from engine.state_values import (
    _IMMUTABLE,
    _MISSING,
    _arithmetic,
    _is_number,
    _kind,
    _number_operand,
    _Refused,
    _text_operand,
    copy_value,
    same_value,
)


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
