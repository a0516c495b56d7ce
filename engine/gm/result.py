"""What one game-master action did (``engine.gm.play``): the CLI line, the quota rule, and what
each player character receives of it (seed 001 "Multijugador"; issue 12 §4 and §6).

``delivered_to`` maps each player character who perceived something of the action to the text
his player receives (``engine.gm.delivery``): the actor gets the narration; a character who
perceived nothing is absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.gm.dice import Roll
from engine.gm.report import Closure, ToolReport
from engine.gm.state import GMEvent, PendingCheck
from engine.llm.base import Usage
from engine.session import SessionState

Kind = Literal["engine", "master", "ask", "refused"]
GMAction = str | Mapping[str, Any]


@dataclass
class GMActionResult:
    """What one action did; ``to_dict`` is the CLI contract's line."""

    input: GMAction
    kind: Kind
    narration: str
    state: SessionState
    location: str
    context: str
    model_calls: int = 0
    events: list[GMEvent] = field(default_factory=list)
    rolls: list[Roll] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)
    suggestions: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    pending: PendingCheck | None = None
    language: str = "en"
    tool_calls: list[ToolReport] = field(default_factory=list)
    closure: Closure = field(default_factory=lambda: Closure(True))
    attempts: int = 0
    delivered_to: dict[str, str] = field(default_factory=dict)  # character → his text

    def to_dict(self, master: bool = False) -> dict[str, Any]:
        """The creator's view, hidden rolls included (``"hidden": true``), with what each
        character received (``delivered_to``); ``master`` adds the tool loop's fields
        (``--replies``): tool_calls, closure and attempts."""
        line = {
            "input": self.input if isinstance(self.input, str) else dict(self.input),
            "kind": self.kind,
            "model_calls": self.model_calls,
            "location": self.location,
            "events": [e.to_dict() for e in self.events],
            "rolls": [r.summary() for r in self.rolls],
            "changes": self.changes,
            "narration": self.narration,
            "suggestions": list(self.suggestions),
            "context": self.context,
            "delivered_to": dict(self.delivered_to),
        }
        if master:
            line["tool_calls"] = [call.to_dict() for call in self.tool_calls]
            line["closure"] = self.closure.to_dict()
            line["attempts"] = self.attempts
        return line

    @property
    def counts_toward_quota(self) -> bool:
        """Seed 001: the daily quota counts the master's actions; engine moves, questions and
        refusals are free (decision 10)."""
        return self.kind == "master"

    def player_rolls(self) -> list[dict[str, Any]]:
        """The breakdowns a player may see: hidden rolls left out (seed 001)."""
        return [r.to_dict() for r in self.rolls if not r.hidden]
