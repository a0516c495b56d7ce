"""The linter's checks on what a creator typed (issue 35 §1 and §3): traps that look fine.

Two things reach the prompt other than the creator meant, silently. Keywords on an entry of a
section that ignores them (every section but chat-history is sent on every turn, seed 004), the
SillyTavern habit that makes a keyword entry fire always. And a ``{{name}}`` that is neither a
macro of ``engine.macros`` nor a variable of the world: ``expand_macros`` leaves it as written,
so ``{{gold}}`` reaches the model raw. Both are warnings: the world still works.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from engine.macro_handlers import MACROS
from engine.messages import say
from engine.world import WorldDefinition, export_world

Triple = tuple[str, str, str]
# As engine.macros reads a macro: ``{{name}}`` or ``{{name::arg::…}}``, no braces inside.
_MACRO = re.compile(r"\{\{(?!\{)([^{}]*)\}\}")
# Source code, not prompt text: JSX's ``style={{…}}`` is no macro.
_CODE_KEYS = frozenset({"rootComponent", "customUI", "components"})


def text_warnings(world: WorldDefinition) -> list[Triple]:
    """Keywords a section ignores, then macros nothing expands, in document order of each."""
    return _ignored_keywords(world) + _unknown_macros(world)


def _ignored_keywords(world: WorldDefinition) -> list[Triple]:
    out = []
    for index, entry in enumerate(world.entries):
        keywords = [k.strip() for k in entry.keywords if k.strip()]
        if not keywords or entry.section == "chat-history" or entry.role == "greeting":
            continue
        shown = ", ".join(keywords[:3]) + (", …" if len(keywords) > 3 else "")
        message = say("keywords-ignored", keywords=shown, section=entry.section)
        out.append((f"entries[{index}].section", "keywords-ignored", str(message)))
    return out


def _unknown_macros(world: WorldDefinition) -> list[Triple]:
    known = {name.lower() for name in MACROS}
    variables = world.variables_by_id
    out = []
    for path, text in _texts(export_world(world), ""):
        for body in dict.fromkeys(_MACRO.findall(text)):
            name, *args = body.strip().split("::")
            key = name.strip()
            if not key or key.startswith("//") or key.lower() in known:
                continue
            if not args and key in variables:
                continue
            message = say("unknown-macro", macro="{{" + body.strip() + "}}")
            out.append((path, "unknown-macro", str(message)))
    return out


def _texts(node: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string holding ``{{`` in the world's JSON, with its path."""
    if isinstance(node, str):
        if "{{" in node:
            yield path, node
    elif isinstance(node, dict):
        for key, value in node.items():
            if not path and key in _CODE_KEYS:
                continue
            yield from _texts(value, f"{path}.{key}" if path else key)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _texts(value, f"{path}[{index}]")
