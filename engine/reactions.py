"""Reactions: event patterns and their effects (seed 004 "Reactions", "系统效果路径").

A reaction matches an event when ``when.eventType`` equals the event type and every other field
of ``when`` equals the event's data field of the same name. Its ``then`` runs ``set`` on a
variable (with an optional ``operation``) or on an ``@`` system path, and ``emit`` queues an
event for the next generation. ``Effects`` is the one place where rules and reactions touch the
session, so a rule's ``play-audio`` and a reaction's ``@audio.bgm`` do exactly the same thing.

System paths and the values they take:

- ``@audio.bgm`` / ``@audio.sfx`` / ``@audio.ambient``: a track id (play it), or
  ``{trackId, action, value, chain}``; ``null``/``false`` stops what plays on that channel.
- ``@audio.stop``: a track id stops it; ``null``, ``true``, ``""`` or ``"all"`` stops everything
  (one cue with track id ``"*"``).
- ``@prompt.directive.<id>``: a string injects it at position ``auto``, persistent until
  removed; or ``{content, position, depth, persistent, duration}`` (``persistent`` defaults to
  true); ``null``/``false``/``""`` removes it.
- ``@prompt.entry.<id>``: a boolean shows or hides the entry (``operation: toggle`` flips it).
- ``@prompt.context`` / ``@ai.context``: a string, or ``{message, role}``: one-shot context
  for the next prompt.
- ``@rules.disabled.<id>``: ``true`` disables the rule (or reaction), ``false`` enables it.
- ``@ui.notification``: a string, or ``{message, style}``.
- ``@ai.request``: a truthy value asks the play layer for another AI generation
  (``RulesOutcome.requests_ai``).

Anything else starting with ``@`` is skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast, get_args

from engine.conditions import check_conditions
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
from engine.world import DirectivePosition, EmitEffect, Reaction, SetEffect, WorldDefinition

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


def matches(reaction: Reaction, event: Event) -> bool:
    """Whether ``event`` fits the reaction's ``when`` pattern (type and every extra field)."""
    if reaction.when.event_type != event.type:
        return False
    pattern = reaction.when.model_extra or {}
    return all(key in event.data and same_value(event.data[key], v) for key, v in pattern.items())


def run_reaction(effects: Effects, reaction: Reaction, event: Event) -> bool:
    """Run a reaction's effects for ``event`` if its conditions hold; tell whether it ran."""
    source = f"reaction:{reaction.id}"
    state = effects.state
    if not check_conditions(reaction.conditions, reaction.condition_logic, state.values):
        effects.outcome.log.append(f"{source}: conditions not met on {event.describe()}")
        return False
    effects.outcome.reactions.append(reaction.id)
    effects.outcome.log.append(f"{source}: fired on {event.describe()}")
    for effect in reaction.then:
        if isinstance(effect, EmitEffect):
            effects.emit(Event.from_dict(effect.event))
        else:
            apply_set(effects, effect, source)
    return True


def apply_set(effects: Effects, effect: SetEffect, source: str) -> None:
    """Apply one ``set``: to a variable, or to an ``@`` system path."""
    if not effect.path.startswith("@"):
        effects.modify(effect.path, effect.operation, effect.value, source)
        return
    for prefix, handler in _PREFIX_HANDLERS:
        if effect.path.startswith(prefix) and len(effect.path) > len(prefix):
            handler(effects, effect.path[len(prefix) :], effect, source)
            return
    handler_for_path = _PATH_HANDLERS.get(effect.path)
    if handler_for_path is None:
        effects.skip(source, f"unknown system path '{effect.path}'")
        return
    handler_for_path(effects, effect.path, effect, source)


# --- system path handlers ------------------------------------------------------------

Handler = Callable[[Effects, str, SetEffect, str], None]


def _audio_channel(effects: Effects, path: str, effect: SetEffect, source: str) -> None:
    channel = path.rsplit(".", 1)[1]
    value = effect.value
    if value is None or value is False or value == "":
        playing = effects.state.audio.get(channel)
        if playing:
            effects.play(AudioCue(playing, "stop", None, None, source))
        return
    if isinstance(value, dict):
        track_id = str(value.get("trackId") or value.get("track") or "")
        action = str(value.get("action") or "play")
        level = value.get("value", value.get("volume"))
        chain = value.get("chain") or value.get("chainTo")
        number = float(level) if isinstance(level, int | float) else None
        cue = AudioCue(track_id, action, number, str(chain) if chain else None, source)
    else:
        cue = AudioCue(str(value), "play", None, None, source)
    track = effects.world.tracks_by_id.get(cue.track_id)
    if track is not None and track.type != channel:
        effects.outcome.log.append(f"{source}: track '{track.id}' is {track.type}, not {channel}")
    effects.play(cue)


def _audio_stop(effects: Effects, path: str, effect: SetEffect, source: str) -> None:
    value = effect.value
    if value is None or value is True or value in ("", "all", STOP_ALL):
        effects.play(AudioCue(STOP_ALL, "stop", None, None, source))
    else:
        effects.play(AudioCue(str(value), "stop", None, None, source))


def _directive(effects: Effects, directive_id: str, effect: SetEffect, source: str) -> None:
    value = effect.value
    if value is None or value is False or value == "":
        effects.remove_directive(directive_id, source)
        return
    if isinstance(value, dict):
        depth, duration = value.get("depth"), value.get("duration")
        effects.inject_directive(
            directive_id,
            str(value.get("content", "")),
            source,
            position=str(value.get("position", "auto")),
            depth=depth if isinstance(depth, int) else None,
            persistent=bool(value.get("persistent", True)),
            duration=duration if isinstance(duration, int) else None,
        )
        return
    effects.inject_directive(directive_id, _text(value), source, persistent=True)


def _entry(effects: Effects, entry_id: str, effect: SetEffect, source: str) -> None:
    current = effects.state.entry_enabled(effects.world, entry_id)
    enabled = _boolean(effect, current)
    if enabled is None:
        effects.skip(source, f"@prompt.entry.{entry_id} needs true or false")
        return
    effects.toggle_entry(entry_id, enabled, source)


def _rule_disabled(effects: Effects, rule_id: str, effect: SetEffect, source: str) -> None:
    rule = effects.world.rules_by_id.get(rule_id)
    if rule is not None:
        currently_disabled = not effects.state.rule_enabled(effects.world, rule_id)
    else:
        reaction = next((r for r in effects.world.reactions or [] if r.id == rule_id), None)
        currently_disabled = reaction is not None and not reaction_enabled(effects.state, reaction)
    disabled = _boolean(effect, currently_disabled)
    if disabled is None:
        effects.skip(source, f"@rules.disabled.{rule_id} needs true or false")
        return
    effects.toggle_rule(rule_id, not disabled, source)


def _context(effects: Effects, path: str, effect: SetEffect, source: str) -> None:
    value = effect.value
    if isinstance(value, dict):
        text = _text(value.get("message", value.get("content", "")))
        role = str(value.get("role", "system"))
    else:
        text, role = _text(value), "system"
    if not text:
        effects.skip(source, f"{path} needs a message")
        return
    effects.add_context(text, role, source)


def _notification(effects: Effects, path: str, effect: SetEffect, source: str) -> None:
    value = effect.value
    if isinstance(value, dict):
        text, style = _text(value.get("message", "")), str(value.get("style", "info"))
    else:
        text, style = _text(value), "info"
    if not text:
        effects.skip(source, f"{path} needs a message")
        return
    effects.notify(text, style, source)


def _ai_request(effects: Effects, path: str, effect: SetEffect, source: str) -> None:
    if effect.value is not None and effect.value is not False:
        effects.request_ai(source)


def _boolean(effect: SetEffect, current: bool) -> bool | None:
    if effect.operation == "toggle":
        return not current
    value = effect.value
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _on_off(enabled: bool) -> str:
    return "enabled" if enabled else "disabled"


_PREFIX_HANDLERS: list[tuple[str, Handler]] = [
    ("@prompt.directive.", _directive),
    ("@prompt.entry.", _entry),
    ("@rules.disabled.", _rule_disabled),
]
_PATH_HANDLERS: dict[str, Handler] = {
    "@audio.bgm": _audio_channel,
    "@audio.sfx": _audio_channel,
    "@audio.ambient": _audio_channel,
    "@audio.stop": _audio_stop,
    "@prompt.context": _context,
    "@ai.context": _context,
    "@ui.notification": _notification,
    "@ai.request": _ai_request,
}
SYSTEM_PATHS: tuple[str, ...] = (
    *(p for p in _PATH_HANDLERS),
    *(p + "<id>" for p, _ in _PREFIX_HANDLERS),
)


def matching_reactions(reactions: Iterable[Reaction], event: Event) -> list[Reaction]:
    return [r for r in reactions if matches(r, event)]
