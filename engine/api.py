"""The engine's public surface, for the CLI, the Django apps and other tools.

Import from here rather than from the modules, so the modules may be rearranged freely.

`expand_macros` and `assemble_prompt` here are the outside world's entry points, so they
supply what a caller leaves out: the wall clock for the time macros (``{{time}}`` is the current
time, seed 000) and, unless the context pins an ``rng`` or a ``seed``, a fresh random source, so
``{{random}}`` re-rolls on every expansion while ``{{pick}}`` stays stable within a turn. The
turn pipeline injects its own clock and rng and calls the modules directly.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from engine import macros, prompt
from engine.directives import AudioCue, ParseResult, StreamFilter, parse_reply
from engine.events import Event, Notification, RulesOutcome
from engine.macros import MacroContext
from engine.prompt import PromptResult
from engine.rules import expire_directives, fire_rule, run_rules
from engine.session import Message, Persona, SessionState
from engine.state import Change, Skipped
from engine.turn import (
    AudioEvent,
    ChoicesEvent,
    Delta,
    Done,
    NotificationEvent,
    PlayerAction,
    StateChanged,
    Turn,
    TurnEvent,
    TurnFailed,
    TurnResult,
)
from engine.world import WorldDefinition, WorldValidationError, export_world, load_world

__all__ = [
    "AudioCue",
    "AudioEvent",
    "Change",
    "ChoicesEvent",
    "Delta",
    "Done",
    "Event",
    "MacroContext",
    "Message",
    "Notification",
    "NotificationEvent",
    "ParseResult",
    "Persona",
    "PlayerAction",
    "PromptResult",
    "RulesOutcome",
    "SessionState",
    "Skipped",
    "StateChanged",
    "StreamFilter",
    "Turn",
    "TurnEvent",
    "TurnFailed",
    "TurnResult",
    "WorldDefinition",
    "WorldValidationError",
    "assemble_prompt",
    "expand_macros",
    "expire_directives",
    "export_world",
    "fire_rule",
    "load_world",
    "parse_reply",
    "run_rules",
]


def expand_macros(
    world: WorldDefinition | None,
    text: str,
    state: Mapping[str, Any] | SessionState | None = None,
    context: MacroContext | None = None,
) -> str:
    """Replace every macro in ``text``; unknown or failing macros are left exactly as written.

    Without ``context.now`` the time macros read the wall clock; without ``context.rng`` or
    ``context.seed``, ``{{random}}`` and ``{{roll}}`` draw from a fresh random source.
    """
    return macros.expand_macros(world, text, state, _with_defaults(context))


def assemble_prompt(
    world: WorldDefinition,
    history: Sequence[Message],
    state: SessionState | Mapping[str, Any] | None = None,
    *,
    persona: Persona | None = None,
    context: MacroContext | None = None,
) -> PromptResult:
    """Assemble the prompt for the next AI reply (`engine.prompt.assemble_prompt`).

    The macro context gets the same defaults as `expand_macros`. Odd input never raises.
    """
    if context is None:
        turn = state.turn if isinstance(state, SessionState) else 0
        if (
            isinstance(state, Mapping)
            and isinstance(state.get("values"), dict)
            and set(state) <= set(SessionState.model_fields)
        ):  # the saved form of a SessionState, as `engine.prompt` reads it
            saved = state.get("turn")
            turn = saved if isinstance(saved, int) else 0
        context = MacroContext(turn=turn)
    return prompt.assemble_prompt(
        world, history, state, persona=persona, context=_with_defaults(context)
    )


def _with_defaults(context: MacroContext | None) -> MacroContext:
    ctx = context or MacroContext()
    updates: dict[str, Any] = {}
    if ctx.now is None:
        updates["now"] = datetime.now(UTC).astimezone()
    if ctx.rng is None and ctx.seed is None:
        updates["rng"] = random.Random()
    return dataclasses.replace(ctx, **updates) if updates else ctx
