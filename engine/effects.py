"""``Effects``: the one place where rules and reactions touch the session (seed 004 "Reactions",
"系统效果路径"), so a rule's ``play-audio`` and a reaction's ``@audio.bgm`` do exactly the same
thing. Rules (``engine.rules``) and the ``@`` path handlers (``engine.system_paths``) both call it.
"""

from __future__ import annotations

from typing import Any, cast, get_args

from engine.directives import AudioCue
from engine.events import (
    NOTIFICATION_STYLES,
    Event,
    Notification,
    RulesOutcome,
    rule_fire,
    state_changed,
)
from engine.session import ContextMessage, InjectedDirective, Role, SessionState
from engine.state import Skipped, apply_operation, copy_value, resolve_variable, same_value
from engine.world import DirectivePosition, Reaction, WorldDefinition

AUDIO_CHANNELS = ("bgm", "sfx", "ambient")
# Channels whose track keeps playing across turns, so the session remembers it.
LASTING_CHANNELS = ("bgm", "ambient")
STOP_ALL = "*"
DIRECTIVE_POSITIONS: tuple[str, ...] = get_args(DirectivePosition)


class Effects:
    """Applies effects to a session state and records them in a ``RulesOutcome``.

    ``next_prompt_turn`` is the turn whose prompt will first see an injected directive: a
    one-shot directive lives through that prompt, a ``duration`` N one through N prompts.
    """

    def __init__(
        self,
        world: WorldDefinition,
        state: SessionState,
        outcome: RulesOutcome,
        *,
        next_prompt_turn: int,
    ) -> None:
        self.world = world
        self.state = state
        self.outcome = outcome
        self.next_prompt_turn = next_prompt_turn
        # The next generation, in order: queued events and, as placeholders, the ids of
        # variables touched (each becomes one state:changed when the generation ends).
        self._queue: list[Event | str] = []
        self._before: dict[str, Any] = {}

    # --- generations ------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        self._queue.append(event)

    def next_generation(self) -> list[Event]:
        """The events produced since the last call; variables changed become state:changed."""
        events = []
        for item in self._queue:
            if isinstance(item, Event):
                events.append(item)
                continue
            old, new = self._before[item], self.state.values.get(item)
            if not same_value(old, new):
                events.append(state_changed(item, old, new))
        self._queue, self._before = [], {}
        return events

    # --- variables --------------------------------------------------------------------

    def modify(self, target: str, operation: str, value: Any, source: str) -> None:
        """Apply ``operation`` to a variable (id or name) or to a dot path inside a json one."""
        variable_id, path = split_target(self.world, target)
        if variable_id not in self.world.variables_by_id:
            self.skip(source, f"unknown variable '{target}'")
            return
        first_touch = variable_id not in self._before
        before = copy_value(self.state.values.get(variable_id)) if first_touch else None
        result = apply_operation(
            self.world, self.state.values, variable_id, operation, value, path, source
        )
        if result is None:
            self.outcome.log.append(f"{source}: {target} unchanged")
        elif isinstance(result, Skipped):
            self.outcome.skipped.append(result)
            self.outcome.log.append(f"{source}: skipped {target}: {result.reason}")
        else:
            self.outcome.changes.append(result)
            if first_touch:
                self._before[variable_id] = before
                self._queue.append(variable_id)

    # --- system effects ---------------------------------------------------------------

    def inject_directive(
        self,
        directive_id: str,
        content: str,
        source: str,
        *,
        position: str = "auto",
        depth: int | None = None,
        persistent: bool = False,
        duration: int | None = None,
    ) -> None:
        if position not in DIRECTIVE_POSITIONS:
            self.skip(source, f"directive '{directive_id}': unknown position '{position}'")
            return
        expires: int | None = None
        if duration is not None and duration >= 1:
            expires = self.next_prompt_turn + duration - 1
        elif not persistent:
            expires = self.next_prompt_turn
        self.state.directives[directive_id] = InjectedDirective(
            id=directive_id,
            content=content,
            position=position,
            depth=depth,
            persistent=persistent,
            expires_after_turn=expires,
        )
        self.outcome.log.append(f"{source}: injected directive '{directive_id}' ({position})")

    def remove_directive(self, directive_id: str, source: str) -> None:
        removed = self.state.directives.pop(directive_id, None)
        what = "removed" if removed else "no directive to remove:"
        self.outcome.log.append(f"{source}: {what} '{directive_id}'")

    def notify(self, message: str, style: str, source: str) -> None:
        if style not in NOTIFICATION_STYLES:
            style = "info"
        self.outcome.notifications.append(Notification(message, style, source))

    def play(self, cue: AudioCue) -> None:
        if cue.track_id != STOP_ALL and cue.track_id not in self.world.tracks_by_id:
            self.skip(cue.source, f"unknown audio track '{cue.track_id}'")
            return
        record_audio(self.world, self.state, cue)
        self.outcome.audio.append(cue)

    def toggle_entry(self, entry_id: str, enabled: bool, source: str) -> None:
        if entry_id not in self.world.entries_by_id:
            self.skip(source, f"unknown entry '{entry_id}'")
            return
        self.state.entry_toggles[entry_id] = enabled
        self.outcome.log.append(f"{source}: entry '{entry_id}' {_on_off(enabled)}")

    def toggle_rule(self, rule_id: str, enabled: bool, source: str) -> None:
        """Enable or disable a rule or reaction; enabling a ``manual`` rule also fires it.

        A manual rule never fires on its own, so enabling it from another rule (the seed's
        "链式反应") is how one rule fires another.
        """
        rule = self.world.rules_by_id.get(rule_id)
        if rule is None and rule_id not in reaction_ids(self.world):
            self.skip(source, f"unknown rule '{rule_id}'")
            return
        self.state.rule_toggles[rule_id] = enabled
        self.outcome.log.append(f"{source}: rule '{rule_id}' {_on_off(enabled)}")
        if enabled and rule is not None and rule.trigger.type == "manual":
            self.emit(rule_fire(rule_id))

    def add_context(self, content: str, role: str, source: str) -> None:
        if role not in ("system", "user"):
            role = "system"
        message = ContextMessage(role=cast(Role, role), content=content)
        self.state.pending_context.append(message)
        self.outcome.log.append(f"{source}: context for the next prompt ({role})")

    def request_ai(self, source: str) -> None:
        self.outcome.requests_ai = True
        self.outcome.log.append(f"{source}: requests an AI generation")

    def skip(self, source: str, reason: str) -> None:
        self.outcome.skipped.append(Skipped(source, reason))
        self.outcome.log.append(f"{source}: skipped: {reason}")


def split_target(world: WorldDefinition, target: str) -> tuple[str, tuple[str | int, ...]]:
    """Split ``npcs.aria.trust`` into the variable id and the path inside it (digits → index).

    The head may be a variable's id or its display name, as in the reply's directives.
    """
    head, _, rest = (
        target.partition(".") if target not in world.variables_by_id else (target, "", "")
    )
    variable = resolve_variable(world, head)
    path = tuple(int(p) if p.isdigit() else p for p in rest.split(".")) if rest else ()
    return (variable.id if variable else head), path


def record_audio(world: WorldDefinition, state: SessionState, cue: AudioCue) -> None:
    """Remember the track playing on each lasting channel (bgm, ambient) in ``state.audio``."""
    if cue.track_id == STOP_ALL:
        if cue.action == "stop":
            state.audio.clear()
        return
    track = world.tracks_by_id.get(cue.track_id)
    if track is None or track.type not in LASTING_CHANNELS:
        return
    if cue.action in ("play", "crossfade"):
        state.audio[track.type] = track.id
    elif cue.action == "stop" and state.audio.get(track.type) == track.id:
        state.audio[track.type] = None


def reaction_ids(world: WorldDefinition) -> set[str]:
    return {r.id for r in world.reactions or []}


def reaction_enabled(state: SessionState, reaction: Reaction) -> bool:
    return state.rule_toggles.get(reaction.id, reaction.enabled)


def _on_off(enabled: bool) -> str:
    return "enabled" if enabled else "disabled"
