"""The format blocks of the prompt: the static one of step 3 (behaviour rules, directive syntax,
audio tracks) and the dynamic ``<current-state>`` of step 12 (seed 004 "提示词组装顺序").

The texts the model is told about the directive syntax are held here, apart from the assembly,
so the words and their layout can be read and changed in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.macros import format_value
from engine.world import Variable, WorldDefinition

DIRECTIVE_SYNTAX = """<directive-syntax>
Write state changes as bracket directives at the end of your reply, using variable ids; the \
engine applies them and hides them from the player.
[id: set value] or [id: value] - replace the value (numbers plain, strings in "double quotes", \
true/false, JSON inline)
[id: +N] / [id: -N] / [id: *N] - add to, subtract from, multiply a number
[id: toggle] - flip a boolean
[id: append "text"] - add text to the end of a string
[id: merge {"key": "value"}] - shallow-merge into a JSON object
[id: push value] - append to a JSON array
[id: delete "key"] or [id: delete N] - remove a key or an array index
[id.path.to.field: op value] - change a nested field of a JSON variable
</directive-syntax>"""
AUDIO_SYNTAX = (
    "Control audio with [audio: track-id play], [audio: track-id stop], "
    "[audio: track-id crossfade seconds], [audio: track-id volume 0-1] and "
    "[audio: track-id play chain:next-track-id]."
)


def static_format(world: WorldDefinition) -> str:
    parts: list[str] = []
    if world.variables:
        rules = "\n\n".join(_describe_variable(v) for v in world.variables)
        parts.append(f"<behavior-rules>\n{rules}\n</behavior-rules>")
        parts.append(DIRECTIVE_SYNTAX)
    if world.audio_tracks:
        tracks = "\n".join(
            f"- {t.id} ({t.type}){': ' + t.name if t.name else ''}" for t in world.audio_tracks
        )
        parts.append(f"<audio-tracks>\n{AUDIO_SYNTAX}\n{tracks}\n</audio-tracks>")
    return "\n\n".join(parts)


def _describe_variable(variable: Variable) -> str:
    kind: str = variable.type
    if kind == "number":
        low, high = variable.min, variable.max
        if low is not None and high is not None:
            kind += f", {format_value(low)} to {format_value(high)}"
        elif low is not None:
            kind += f", min {format_value(low)}"
        elif high is not None:
            kind += f", max {format_value(high)}"
    name = f" {variable.name}" if variable.name and variable.name != variable.id else ""
    head = f"[{variable.id}]{name} ({kind})"
    if variable.description.strip():
        head += f": {variable.description.strip()}"
    rules = variable.behavior_rules.strip()
    return f"{head}\n{rules}" if rules else head


def dynamic_format(world: WorldDefinition, values: Mapping[str, Any]) -> str:
    if not world.variables:
        return ""
    lines = [
        f"{v.id}: {format_value(values.get(v.id), as_json=v.type == 'json')}"
        for v in world.variables
    ]
    return "<current-state>\n" + "\n".join(lines) + "\n</current-state>"
