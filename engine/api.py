"""The engine's public surface, for the CLI, the Django apps and other tools.

Import from here rather than from the modules, so the modules may be rearranged freely.
"""

from __future__ import annotations

from engine.directives import AudioCue, ParseResult, StreamFilter, parse_reply
from engine.events import Event, Notification, RulesOutcome
from engine.macros import MacroContext, expand_macros
from engine.prompt import PromptResult, assemble_prompt
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
