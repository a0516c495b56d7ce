"""What the master is doing, step by step, for the player's status line (issue 37 §1).

A master turn can take minutes on a local server; the player sees each step of the loop as a
status: a model call is ``thinking``, a tool call the step its name stands for, ``writing``
while the narration is checked. Only these keys leave the engine (the play app words them in
the player's language): never a tool's name, arguments or result, and the tools that touch
what the character has not learned (secrets, clues, hooks, notes) all read as ``thinking``.

``live(...)`` sets, for one turn, the callback that hears the steps and what the provider's
server accepts (``engine.llm.capabilities``); the loop reads them with ``current()``. A context
variable, because the turn goes through the dispatcher, the directors and the talk script on
its way to the loop, none of which has a use for either.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from engine.llm.capabilities import Capabilities

THINKING = "thinking"
WRITING = "writing"
STEPS = (THINKING, "rule", "rolling", "moving", "looking", "items", "trading", "body", WRITING)
_BY_TOOL = {
    "lookup_rule": "rule",
    "request_skill_check": "rolling",
    "request_attack": "rolling",
    "move_character": "moving",
    "discover_hidden_point": "looking",
    "gather": "looking",
    "hold_item": "items",
    "transfer_item": "items",
    "buy_item": "trading",
    "sell_item": "trading",
    "pawn_item": "trading",
    "set_debt": "trading",
    "settle_debt": "trading",
    "damage": "body",
    "heal": "body",
    "stabilise": "body",
    "rest": "body",
    "spend_resource": "body",
    "log_event": WRITING,
}

OnStep = Callable[[str], None]


@dataclass(frozen=True)
class Live:
    """One turn's listener and the provider's capabilities."""

    on_step: OnStep | None = None
    capabilities: Capabilities = field(default_factory=Capabilities)


_LIVE: ContextVar[Live] = ContextVar("fabula_gm_live", default=Live())  # noqa: B039


def step_of(tool: str) -> str:
    """The status key a tool call shows as; any tool not listed (or secret) is thinking."""
    return _BY_TOOL.get(tool, THINKING)


def live(on_step: OnStep | None, capabilities: Capabilities | None) -> None:
    """Set this context's listener and capabilities (call it inside the turn's own task)."""
    _LIVE.set(Live(on_step, capabilities or Capabilities()))


def current() -> Live:
    return _LIVE.get()


def say(step: str) -> None:
    """Tell the listener, if any; a listener's failure never breaks the turn."""
    callback = _LIVE.get().on_step
    if callback is None:
        return
    try:
        callback(step)
    except Exception:  # a status line is never worth a turn
        return
