"""Rules and reactions of a world (seed 004 "规则与响应"): triggers, actions, effects.

The behaviour a creator attaches to a world, kept apart from its content (entries, variables)
and its presentation so each part of the format reads on its own (`engine.world` gathers them).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from engine.world_types import (
    MAX_ENTRY_CONTENT,
    MAX_INT,
    Condition,
    KebabId,
    Logic,
    Operation,
    Schema,
    _union_tags,
)

# --- rules (seed 004 "规则与响应") -------------------------------------------------------


class VariableCrossedTrigger(Schema):
    type: Literal["variable-crossed"]
    variable_id: str
    direction: Literal["rises-above", "drops-below"]
    threshold: float


class StateChangeTrigger(Schema):
    type: Literal["state-change"]
    variable_id: str | None = None


class TurnCountTrigger(Schema):
    type: Literal["turn-count"]
    at_turn: int | None = None
    every_n_turns: int | None = Field(default=None, ge=1)


class SessionStartTrigger(Schema):
    type: Literal["session-start"]


class KeywordTrigger(Schema):
    type: Literal["keyword"]
    keywords: list[str] = Field(default_factory=list)
    match_whole_words: bool = False


class AiKeywordTrigger(Schema):
    type: Literal["ai-keyword"]
    keywords: list[str] = Field(default_factory=list)
    match_whole_words: bool = False


class EveryTurnTrigger(Schema):
    type: Literal["every-turn"]


class ActionTrigger(Schema):
    type: Literal["action"]
    action_id: str


class ManualTrigger(Schema):
    type: Literal["manual"]


Trigger = Annotated[
    VariableCrossedTrigger
    | StateChangeTrigger
    | TurnCountTrigger
    | SessionStartTrigger
    | KeywordTrigger
    | AiKeywordTrigger
    | EveryTurnTrigger
    | ActionTrigger
    | ManualTrigger,
    Field(discriminator="type"),
]
TRIGGER_TYPES = _union_tags(Trigger)


class ModifyVariableAction(Schema):
    type: Literal["modify-variable"]
    variable_id: str
    operation: Operation = "set"
    value: Any = None


DirectivePosition = Literal["top", "before_char", "after_char", "auto", "depth", "bottom"]


class InjectDirectiveAction(Schema):
    type: Literal["inject-directive"]
    directive_id: str
    content: str = Field(default="", max_length=MAX_ENTRY_CONTENT)
    position: DirectivePosition = "auto"
    depth: int | None = Field(default=None, ge=0, le=MAX_INT)
    persistent: bool = False
    duration: int | None = Field(default=None, ge=1, le=MAX_INT)


class RemoveDirectiveAction(Schema):
    type: Literal["remove-directive"]
    directive_id: str


class NotifyPlayerAction(Schema):
    type: Literal["notify-player"]
    message: str = ""
    style: Literal["info", "achievement", "warning", "danger"] = "info"


class PlayAudioAction(Schema):
    type: Literal["play-audio"]
    track_id: str
    action: Literal["play", "stop", "crossfade", "volume"] = "play"
    value: float | None = None


class ToggleEntryAction(Schema):
    type: Literal["toggle-entry"]
    entry_id: str
    enabled: bool = True


class ToggleRuleAction(Schema):
    type: Literal["toggle-rule"]
    rule_id: str
    enabled: bool = True


class SendContextAction(Schema):
    type: Literal["send-context"]
    message: str = ""
    role: Literal["system", "user"] = "system"


Action = Annotated[
    ModifyVariableAction
    | InjectDirectiveAction
    | RemoveDirectiveAction
    | NotifyPlayerAction
    | PlayAudioAction
    | ToggleEntryAction
    | ToggleRuleAction
    | SendContextAction,
    Field(discriminator="type"),
]
ACTION_TYPES = _union_tags(Action)


class Rule(Schema):
    id: KebabId
    name: str = ""
    description: str = ""
    trigger: Trigger
    conditions: list[Condition] = Field(default_factory=list)
    condition_logic: Logic = "all"
    actions: list[Action] = Field(default_factory=list)
    priority: int = Field(default=0, ge=-MAX_INT, le=MAX_INT)
    enabled: bool = True
    cooldown_turns: int | None = Field(default=None, ge=0, le=MAX_INT)
    max_fire_count: int | None = Field(default=None, ge=0, le=MAX_INT)


# --- reactions ---------------------------------------------------------------------------


class ReactionWhen(Schema):
    """An event pattern: ``eventType`` plus any fields the event must carry (kept as extras)."""

    event_type: str


class SetEffect(Schema):
    type: Literal["set"]
    path: str
    value: Any = None
    operation: Operation = "set"


class EmitEffect(Schema):
    type: Literal["emit"]
    event: dict[str, Any]

    @model_validator(mode="after")
    def _event_has_type(self) -> EmitEffect:
        if not isinstance(self.event.get("type"), str) or not self.event["type"]:
            raise ValueError("event.type must be a non-empty string")
        return self


ReactionEffect = Annotated[SetEffect | EmitEffect, Field(discriminator="type")]


class Reaction(Schema):
    id: KebabId
    name: str = ""
    when: ReactionWhen
    conditions: list[Condition] = Field(default_factory=list)
    condition_logic: Logic = "all"
    then: list[ReactionEffect] = Field(default_factory=list)
    enabled: bool = True
