"""Reading ``<UpdateVariable>`` blocks into effects (seed 000 "El formato JSON Patch").

Patches name their slots with RFC 6901 pointers rather than directive heads, so their reading
lives apart from the bracket directives of `engine.directive_bodies`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.directive_bodies import _Malformed
from engine.state import Effect, Path, resolve_variable
from engine.world import WorldDefinition

_TARGET = re.compile(r"""\btarget\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
_JSON_PATCH = re.compile(r"<jsonpatch\s*>(.*?)(?:</jsonpatch\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"\A```[A-Za-z]*\s*|\s*```\Z")
_PATCH_OPS = {"replace": "set", "delta": "add", "insert": "insert", "add": "insert"}


def _patch_effect(world: WorldDefinition, base: tuple[str, Path] | None, operation: Any) -> Effect:
    if not isinstance(operation, dict):
        raise _Malformed("a patch operation must be an object")
    source = _compact(operation)
    name = operation.get("op")
    kind = name.lower() if isinstance(name, str) else ""
    if kind not in _PATCH_OPS and kind != "remove":
        raise _Malformed(
            f"unsupported patch operation {json.dumps(name)} (replace, delta, insert, remove)"
        )
    pointer = operation.get("path")
    if not isinstance(pointer, str):
        raise _Malformed("a patch operation needs a string path")
    segments = _pointer(pointer)
    if base is not None:
        variable_id, prefix = base
        path: Path = (*prefix, *segments)
    else:
        if not segments:
            raise _Malformed("without target=, the path must start with a variable")
        variable = resolve_variable(world, str(segments[0]))
        if variable is None:
            raise _Malformed(f"unknown variable '{segments[0]}'")
        variable_id, path = variable.id, segments[1:]
    if kind == "remove":
        if not path:
            raise _Malformed("remove needs a path inside the variable")
        return Effect(variable_id, path[:-1], "delete", path[-1], source)
    if "value" not in operation:
        raise _Malformed(f"{kind} needs a value")
    return Effect(variable_id, path, _PATCH_OPS[kind], operation["value"], source)


def _pointer(pointer: str) -> Path:
    if not pointer:
        return ()
    if pointer.startswith("/"):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]
    else:
        parts = [p.strip() for p in pointer.split("/" if "/" in pointer else ".")]
    return tuple(int(p) if p.isdigit() and p.isascii() else p for p in parts)


# One encoder for every operation's source: `json.dumps` with options builds a new one per call.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _compact(value: Any) -> str:
    try:
        return _COMPACT.encode(value)
    except (TypeError, ValueError, RecursionError):
        return repr(value)
