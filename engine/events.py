"""Events and what rules make of them (seed 004 "每轮生成的事件", "规则与响应").

Every turn emits ``message:user``, ``message:ai``, ``turn:complete`` and one ``state:changed`` per
changed variable; rules and reactions match them. Reactions may ``emit`` events of any other type.
The engine's own extra types are ``session:start`` (first message of a session), ``action``
(a custom-UI button or a client ``action`` frame) and ``rule:fire`` (fire one rule explicitly).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.directives import AudioCue
from engine.state import Change, Skipped, same_value

MESSAGE_USER = "message:user"
MESSAGE_AI = "message:ai"
TURN_COMPLETE = "turn:complete"
STATE_CHANGED = "state:changed"
SESSION_START = "session:start"
ACTION = "action"
RULE_FIRE = "rule:fire"

NOTIFICATION_STYLES = ("info", "achievement", "warning", "danger")


@dataclass(frozen=True, slots=True)
class Event:
    """One event: a type such as ``state:changed`` and its data (``variableId``, ``content``…)."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        """Build an event from ``{"type": ..., **fields}`` (the shape of a reaction's ``emit``)."""
        fields = {k: copy.deepcopy(v) for k, v in data.items() if k != "type"}
        return cls(type=str(data.get("type", "")), data=fields)

    def describe(self) -> str:
        """A short label for logs: ``state:changed(health)``, ``action(open-door)``."""
        key = self.data.get("variableId") or self.data.get("actionId") or self.data.get("ruleId")
        if self.type == TURN_COMPLETE:
            key = self.data.get("turn")
        return f"{self.type}({key})" if key is not None else self.type


def message_user(content: str) -> Event:
    return Event(MESSAGE_USER, {"content": content})


def message_ai(content: str) -> Event:
    return Event(MESSAGE_AI, {"content": content})


def turn_complete(turn: int) -> Event:
    # Both spellings, so a reaction may match on ``turn`` or on the macro name ``turnCount``.
    return Event(TURN_COMPLETE, {"turn": turn, "turnCount": turn})


def session_start() -> Event:
    return Event(SESSION_START, {})


def action(action_id: str) -> Event:
    return Event(ACTION, {"actionId": action_id})


def rule_fire(rule_id: str) -> Event:
    return Event(RULE_FIRE, {"ruleId": rule_id})


def state_changed(variable_id: str, old: Any, new: Any) -> Event:
    return Event(
        STATE_CHANGED,
        {"variableId": variable_id, "oldValue": copy.deepcopy(old), "newValue": copy.deepcopy(new)},
    )


def state_changed_events(
    changes: Iterable[Change], before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Event]:
    """One ``state:changed`` per variable touched by ``changes`` whose whole value differs.

    Several changes to one variable (or to paths inside a json variable) make one event carrying
    the variable's value before the batch and after it, in the order variables were first touched.
    """
    events = []
    for variable_id in dict.fromkeys(change.variable_id for change in changes):
        old, new = before.get(variable_id), after.get(variable_id)
        if not same_value(old, new):
            events.append(state_changed(variable_id, old, new))
    return events


@dataclass(frozen=True, slots=True)
class Notification:
    """A toast for the player (`notify-player`, `@ui.notification`)."""

    message: str
    style: str = "info"
    source: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"message": self.message, "style": self.style, "source": self.source}


@dataclass(slots=True)
class RulesOutcome:
    """What one ``run_rules`` call did; the state it was given holds the result.

    ``fired`` lists rule ids and ``reactions`` reaction ids, once per firing, in firing order.
    ``log`` narrates every firing and every refusal; ``warnings`` repeats the serious ones (a loop
    stopped at the depth limit); ``skipped`` holds effects that could not apply, with the reason.
    """

    changes: list[Change] = field(default_factory=list)
    notifications: list[Notification] = field(default_factory=list)
    audio: list[AudioCue] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)
    reactions: list[str] = field(default_factory=list)
    requests_ai: bool = False
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def extend(self, other: RulesOutcome) -> None:
        """Append another outcome (a later phase of the same turn) to this one."""
        self.changes.extend(other.changes)
        self.notifications.extend(other.notifications)
        self.audio.extend(other.audio)
        self.fired.extend(other.fired)
        self.reactions.extend(other.reactions)
        self.requests_ai = self.requests_ai or other.requests_ai
        self.log.extend(other.log)
        self.warnings.extend(other.warnings)
        self.skipped.extend(other.skipped)
