"""What the tool-calling master did in one turn, as the play layer and the CLI read it (issue
"Game master II" §2, §7): each call with its result, the closure check, the attempts, the model
calls with their summed usage, and what the applied tools produced. Kept apart from
``engine.gm.loop`` so that results can be read without importing the tools.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engine.gm.dice import Roll
from engine.gm.state import GMEvent, PendingCheck
from engine.llm.base import Usage


@dataclass(frozen=True)
class ToolReport:
    """One call the master made, as the CLI prints it."""

    name: str
    arguments: dict[str, Any]
    ok: bool
    error: str = ""
    result: dict[str, Any] = field(default_factory=dict)  # what the master read back

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "ok": self.ok, "error": self.error}

    def trace(self) -> dict[str, Any]:
        """The call with its result, for the creator's "what the engine did" (never a
        player's: a result can hold what the character has not learned)."""
        return {**self.to_dict(), "result": self.result}


@dataclass(frozen=True)
class Closure:
    """The check of the narration shown; ``ok`` false when the engine's fallback was shown."""

    ok: bool
    violations: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "violations": list(self.violations)}


@dataclass
class MasterTurn:
    """What the loop did: the checked narration and everything the applied tools produced."""

    narration: str
    suggestions: list[str] = field(default_factory=list)
    tool_calls: list[ToolReport] = field(default_factory=list)
    closure: Closure = field(default_factory=lambda: Closure(False))
    attempts: int = 0  # log_event calls the master made (the check judged each)
    model_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    events: list[GMEvent] = field(default_factory=list)
    rolls: list[Roll] = field(default_factory=list)  # the ones the loop's tools made
    changes: dict[str, Any] = field(default_factory=dict)
    pending: PendingCheck | None = None
    fallback: bool = False


def narration_pieces(text: str) -> list[str]:
    """The checked narration in pieces of a few words, streamed as a model would."""
    return re.findall(r"(?:\S+\s*){1,4}|\s+", text) if text else []
