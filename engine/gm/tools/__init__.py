"""The master's tools (seed 001 "Las tools": 29 tools in nine groups, "Si una tool falla, el motor
devuelve el error y el máster lo vuelve a narrar"; GAME_MASTER.md §4, decisions 12–14; the seam
with the tool loop is docs/GM_TOOLS_INTERFACE.md).

One module per group: ``read`` (campaign notes, the rule sheet), ``dice`` (checks, attacks),
``space`` (move, discover), ``items`` (transfer, buy, sell, gather, hold), ``characters``
(damage, heal, stabilise, rest, spend), ``progress`` (clues, errands, offers, secrets),
``world`` (hooks, rumours, facts), ``deals`` (debts, pawns), ``trust`` and ``closure``
(``log_event``). ``tool_schemas`` is the provider-neutral list the loop sends above the cache
breakpoint, identical byte for byte on every call; ``execute`` validates a call, runs it on a
copy of the turn's state and keeps the copy only when the tool succeeds and changed no other
player's character without a roll against him (``seats``). Its text arguments lose any
directive first (``engine.gm.scrub``): in a game-master world the tools own the numbers.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from engine.gm.scene import Scene
from engine.gm.scrub import strip_all
from engine.gm.state import GMState, clone_gm_state
from engine.gm.tools import characters, closure, deals, dice, items, progress, read, space, trust
from engine.gm.tools import world as world_tools
from engine.gm.tools.base import Tool, ToolCall, ToolError, ToolOutcome, book
from engine.gm.tools.closure import LOG_EVENT
from engine.gm.tools.schema import check_arguments
from engine.gm.tools.seats import guard_seats

__all__ = [
    "LOG_EVENT",
    "TOOLS",
    "Tool",
    "ToolCall",
    "ToolError",
    "ToolOutcome",
    "execute",
    "tool_schemas",
]

_GROUPS = (read, dice, space, items, characters, progress, world_tools, deals, trust, closure)
TOOLS: dict[str, Tool] = {tool.name: tool for group in _GROUPS for tool in group.TOOLS}


def tool_schemas(names: Collection[str] | None = None) -> list[dict[str, Any]]:
    """The tool definitions ``{"name", "description", "parameters"}``, sorted by name, keys
    sorted: the same bytes on every call (they sit above the cache breakpoint). ``names``
    keeps only those tools (the closure-only last call offers ``[LOG_EVENT]``)."""
    chosen = sorted(n for n in TOOLS if names is None or n in names)
    return [json.loads(json.dumps(TOOLS[n].schema(), sort_keys=True)) for n in chosen]


def execute(call: ToolCall, scene: Scene) -> ToolOutcome:
    """Validate, compute and apply one call to ``scene.state`` (the copy the turn owns). A
    failing call changes nothing and returns ``ok=False`` with a reason the master can narrate.
    """
    words = book(scene)
    tool = TOOLS.get(call.name)
    if tool is None:
        error = words.t("unknown_tool", tool=call.name, options=", ".join(sorted(TOOLS)))
        return ToolOutcome(False, {"code": "unknown-tool"}, error=error)
    if call.error:
        error = words.t("bad_arguments", tool=call.name, reason=call.error)
        return ToolOutcome(False, {"code": "invalid-arguments"}, error=error)
    arguments = strip_all(dict(call.arguments))  # a directive is never applied nor shown
    problems = check_arguments(arguments, tool.parameters, words)
    if problems:
        return ToolOutcome(False, {"code": "invalid-arguments"}, error=" ".join(problems))
    trial = replace(scene, state=clone_gm_state(scene.state), _npcs={})
    first = trial.state.next_event
    try:
        outcome = tool.run(trial, arguments)
        guard_seats(scene.state, trial, first)  # another player's character: only by a roll
    except ToolError as exc:
        return ToolOutcome(False, {"code": exc.code}, error=exc.message)
    _commit(scene, trial.state)
    return outcome


def _commit(scene: Scene, state: GMState) -> None:
    """Keep the trial's state in the scene's own object (the caller holds a reference to it)."""
    for name in GMState.model_fields:
        setattr(scene.state, name, getattr(state, name))
    scene._npcs.clear()
