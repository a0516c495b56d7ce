"""The ``@`` system paths a reaction's ``set`` can target, and the handler of each (seed 004
"系统效果路径"); ``engine.reactions`` lists the values each path takes.

One table of small handlers, apart from matching and running reactions, so a new path is one
function and one line of the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.directives import AudioCue
from engine.effects import STOP_ALL, Effects, reaction_enabled
from engine.world import SetEffect


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
