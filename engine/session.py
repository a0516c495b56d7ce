"""What a play session carries from turn to turn, as plain JSON (seed 004 "规则与响应").

Variable values, rule bookkeeping (fire counts, cooldowns), directives injected by rules,
entry and rule toggles and one-shot context all live here, so a saved session resumes exactly
and a failed turn can be thrown away by simply not keeping the new copy.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.gm.state import GMState
from engine.world import WorldDefinition

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool the model asked for (issue "Game master II"); ``error`` is set when the provider
    could not read its arguments (not a JSON object), so the call is answered, never run."""

    id: str
    name: str
    arguments: dict[str, Any]
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "name": self.name, "arguments": self.arguments}
        if self.error:
            data["error"] = self.error
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        arguments = data.get("arguments")
        return cls(
            id=str(data.get("id", "")),
            name=str(data.get("name", "")),
            arguments=dict(arguments) if isinstance(arguments, dict) else {},
            error=str(data.get("error") or ""),
        )


@dataclass(frozen=True, slots=True)
class Message:
    """One chat or prompt message. An assistant turn that asked for tools carries
    ``tool_calls``; a tool's result is ``role="tool"`` with the ``tool_call_id`` it answers.
    Both are left out of ``to_dict`` when unset, so plain messages keep their old form."""

    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        calls = data.get("tool_calls")
        call_id = data.get("tool_call_id")
        return cls(
            role=str(data.get("role", "user")),
            content=str(data.get("content", "")),
            tool_calls=tuple(ToolCall.from_dict(c) for c in calls if isinstance(c, dict))
            if isinstance(calls, list)
            else (),
            tool_call_id=str(call_id) if call_id is not None else None,
        )


@dataclass(frozen=True, slots=True)
class Persona:
    """The player's active persona (seed 000 "Macros de persona del jugador")."""

    name: str = ""
    appearance: str = ""
    personality: str = ""
    backstory: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Persona | None:
        if not data:
            return None
        return cls(
            **{
                k: str(data.get(k) or "")
                for k in ("name", "appearance", "personality", "backstory")
            }
        )


class InjectedDirective(BaseModel):
    """A rule's `inject-directive`, alive until removed or until it expires."""

    model_config = ConfigDict(extra="ignore")

    id: str
    content: str
    position: str = "auto"
    depth: int | None = None
    persistent: bool = False
    expires_after_turn: int | None = None


class ContextMessage(BaseModel):
    """One-shot context for the next prompt (`send-context`, `@prompt.context`, `@ai.context`)."""

    model_config = ConfigDict(extra="ignore")

    role: Role = "system"
    content: str


class SessionState(BaseModel):
    """The whole mutable state of a session; ``model_dump(mode="json")`` is its saved form."""

    model_config = ConfigDict(extra="ignore")

    values: dict[str, Any] = Field(default_factory=dict)
    turn: int = 0
    started: bool = False
    fire_counts: dict[str, int] = Field(default_factory=dict)
    last_fired_turn: dict[str, int] = Field(default_factory=dict)
    directives: dict[str, InjectedDirective] = Field(default_factory=dict)
    entry_toggles: dict[str, bool] = Field(default_factory=dict)
    rule_toggles: dict[str, bool] = Field(default_factory=dict)
    pending_context: list[ContextMessage] = Field(default_factory=list)
    audio: dict[str, str | None] = Field(default_factory=dict)
    compaction_summary: str = ""
    session_memory: str = ""
    # How far the session memory reaches (engine.memory): the position of the last message it
    # covers, and in a game-master world the id of the last event.
    memory_mark: int = -1
    memory_event: int = 0
    gm: GMState | None = None  # game-master worlds only (engine.gm.state, seed 001)

    @classmethod
    def initial(cls, world: WorldDefinition, values: dict[str, Any] | None = None) -> SessionState:
        """A fresh session: defaults for every variable, overridden by ``values``."""
        merged = world.default_state()
        if values:
            merged.update(copy.deepcopy(values))
        return cls(values=merged)

    def clone(self) -> SessionState:
        """A deep copy to mutate during a turn; the original stays valid if the turn fails."""
        return self.model_copy(deep=True)

    def entry_enabled(self, world: WorldDefinition, entry_id: str) -> bool:
        if entry_id in self.entry_toggles:
            return self.entry_toggles[entry_id]
        entry = world.entries_by_id.get(entry_id)
        return bool(entry and entry.enabled)

    def rule_enabled(self, world: WorldDefinition, rule_id: str) -> bool:
        if rule_id in self.rule_toggles:
            return self.rule_toggles[rule_id]
        rule = world.rules_by_id.get(rule_id)
        return bool(rule and rule.enabled)
