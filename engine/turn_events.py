"""What a turn yields and returns (seed 004 "每轮生成的事件"): its events, its result and its
failure.

They live apart from ``engine.turn`` so the pipeline steps (``engine.turn_pipeline``,
``engine.turn_stream``) can build them without importing the ``Turn`` that runs those steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.directives import AudioCue
from engine.events import Notification
from engine.llm.base import Usage
from engine.lorebook import Fired
from engine.prompt import PromptResult
from engine.session import SessionState
from engine.state import Change, Skipped


@dataclass(frozen=True, slots=True)
class Delta:
    """Clean narration text, as it streams."""

    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "delta", "text": self.text}


@dataclass(frozen=True, slots=True)
class StateChanged:
    """One variable (or path inside one) changed, by the reply or by a rule."""

    change: Change

    def to_dict(self) -> dict[str, Any]:
        return {"type": "state", **self.change.to_dict()}


@dataclass(frozen=True, slots=True)
class NotificationEvent:
    notification: Notification

    def to_dict(self) -> dict[str, Any]:
        return {"type": "notification", **self.notification.to_dict()}


@dataclass(frozen=True, slots=True)
class AudioEvent:
    cue: AudioCue

    def to_dict(self) -> dict[str, Any]:
        return {"type": "audio", **self.cue.to_dict()}


@dataclass(frozen=True, slots=True)
class ChoicesEvent:
    """Suggested next actions for the player."""

    choices: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "choices", "choices": list(self.choices)}


@dataclass(frozen=True, slots=True)
class Done:
    result: TurnResult

    def to_dict(self) -> dict[str, Any]:
        return {"type": "done", "result": self.result.to_dict()}


TurnEvent = Delta | StateChanged | NotificationEvent | AudioEvent | ChoicesEvent | Done


@dataclass
class TurnResult:
    """Everything a turn did. ``state`` is the new state; ``changes`` lists, in order, the
    changes of the rules before the prompt, of the reply, and of the rules after it.

    ``prompt`` is None when no model was called (``start``, an ``action`` that did not
    generate). ``requests_ai`` means a rule or reaction asked for another generation.
    """

    text: str
    raw: str
    state: SessionState
    changes: list[Change] = field(default_factory=list)
    notifications: list[Notification] = field(default_factory=list)
    audio: list[AudioCue] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    fired_entries: list[Fired] = field(default_factory=list)
    fired_rules: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    prompt: PromptResult | None = None
    stopped: bool = False
    requests_ai: bool = False
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    gm: Any = None  # a game-master world's engine.gm.play.GMActionResult (kind, rolls, context…)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (the prompt is left out: it is large)."""
        return {
            "text": self.text,
            "raw": self.raw,
            "state": self.state.model_dump(mode="json"),
            "changes": [c.to_dict() for c in self.changes],
            "notifications": [n.to_dict() for n in self.notifications],
            "audio": [a.to_dict() for a in self.audio],
            "choices": list(self.choices),
            "usage": self.usage.to_dict(),
            "fired_entries": [f.to_dict() for f in self.fired_entries],
            "fired_rules": list(self.fired_rules),
            "skipped": [s.to_dict() for s in self.skipped],
            "stopped": self.stopped,
            "requests_ai": self.requests_ai,
            "warnings": list(self.warnings),
        }


class TurnFailed(Exception):
    """The turn could not finish (the provider failed); nothing of it was applied.

    ``message`` can be shown to the player; ``partial_text`` is the clean text streamed so far;
    ``retryable`` and ``status`` come from the ``ProviderError``, if that was the cause.
    """

    def __init__(
        self,
        message: str,
        partial_text: str = "",
        *,
        retryable: bool = False,
        status: int | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.partial_text = partial_text
        self.retryable = retryable
        self.status = status
        self.detail = detail  # technical text for logs, never shown to players
