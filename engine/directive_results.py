"""What reading a reply yields (seed 000 "Cómo procesa el motor la salida de la IA").

The turn, the rules and the events pass these around; they live apart from the parser modules
(`engine.directive_extractor` and its helpers) so those can build them without importing
`engine.directives`, which re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.state import Change, Effect, Skipped, slot_setters


@dataclass(frozen=True, slots=True)
class AudioCue:
    """An ``[audio: track action …]`` directive (seed 004 "AI 音频指令")."""

    track_id: str
    action: str
    value: float | None = None
    chain: str | None = None
    source: str = ""

    def __init__(
        self,
        track_id: str,
        action: str,
        value: float | None = None,
        chain: str | None = None,
        source: str = "",
    ) -> None:
        setters = _CUE_SETTERS  # see engine.state.slot_setters
        setters[0](self, track_id)
        setters[1](self, action)
        setters[2](self, value)
        setters[3](self, chain)
        setters[4](self, source)

    def to_dict(self) -> dict[str, Any]:
        return {
            "trackId": self.track_id,
            "action": self.action,
            "value": self.value,
            "chain": self.chain,
        }


_CUE_SETTERS = slot_setters(AudioCue)


@dataclass(frozen=True, slots=True)
class Extraction:
    """A reply taken apart: clean text, effects (not applied), audio cues, what was skipped."""

    text: str
    effects: list[Effect]
    audio: list[AudioCue]
    skipped: list[Skipped]


@dataclass
class ParseResult:
    """A reply parsed and its effects applied to a copy of the state."""

    text: str
    state: dict[str, Any]
    audio: list[AudioCue] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
