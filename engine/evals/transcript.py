"""What one evaluated action and one game leave behind, as plain JSON (seed 001 "Banco de
medición": "con coste y narraciones lado a lado").

A ``Step`` holds what the detectors and the judge read (the action, who tried to break what, the
narration shown, the suggestions, the tool calls with their results, the rolls, where the
character stood and which names he knew before the action) and what the report sums (model
calls, usage and cost, latency). A ``Transcript`` is one game: the model that played it and its
steps. Both round-trip through ``to_dict``/``from_dict``; unknown keys are ignored, missing ones
take their defaults, so the labelled set and stored results stay readable as fields are added.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from engine.llm.base import Usage


@dataclass
class Finding:
    """One error found in a step: its class, who found it and why."""

    error_class: str
    source: str = "detector"  # detector | judge
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"class": self.error_class, "source": self.source, "detail": self.detail}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(
            str(data.get("class", "other")),
            str(data.get("source", "detector")),
            str(data.get("detail", "")),
        )


@dataclass
class Step:
    """One action of a game and what it did."""

    index: int
    action: str
    narration: str = ""
    tactic: str | None = None  # the break attempt the player made, None for a plain action
    kind: str = "narrator"  # engine | master | ask | refused (game master) | narrator (plain)
    suggestions: list[str] = field(default_factory=list)
    model_calls: int = 0
    usage: dict[str, float] = field(default_factory=dict)
    latency_ms: float = 0.0
    closure: dict[str, Any] = field(default_factory=dict)  # {"ok", "violations"} of the loop
    attempts: int = 0
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    rolls: list[dict[str, Any]] = field(default_factory=list)
    location: str | None = None  # where the character stood before the action
    known_names: list[str] = field(default_factory=list)  # NPC ids he knew before it
    present: list[str] = field(default_factory=list)  # NPC ids with him, before or after
    error: str = ""  # the provider's message when the action could not be played
    judge_error: str = ""  # the judge's provider failed: only the free detectors classified it
    findings: list[Finding] = field(default_factory=list)

    @property
    def cost(self) -> float:
        return float(self.usage.get("cost", 0.0))

    @property
    def failed(self) -> bool:
        return bool(self.error)

    def usage_object(self) -> Usage:
        return Usage.from_dict(dict(self.usage))

    def classes(self) -> list[str]:
        """The error classes found, each once, in order."""
        return list(dict.fromkeys(f.error_class for f in self.findings))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["findings"] = [f.to_dict() for f in self.findings]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Step:
        known = {k: v for k, v in data.items() if k in _STEP_FIELDS and k != "findings"}
        step = cls(**known)
        step.findings = [Finding.from_dict(f) for f in data.get("findings") or []]
        return step


_STEP_FIELDS = frozenset(Step.__dataclass_fields__)


@dataclass
class Transcript:
    """One game (or one model's route): who played it and each step."""

    model: str
    game: int = 0
    character: str | None = None
    language: str = "en"
    steps: list[Step] = field(default_factory=list)

    @property
    def cost(self) -> float:
        return sum(s.cost for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "game": self.game,
            "character": self.character,
            "language": self.language,
            "steps": [s.to_dict() for s in self.steps],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transcript:
        return cls(
            model=str(data.get("model", "")),
            game=int(data.get("game", 0)),
            character=data.get("character"),
            language=str(data.get("language") or "en"),
            steps=[Step.from_dict(s) for s in data.get("steps") or []],
        )
