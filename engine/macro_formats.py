"""How names, the persona, variable values and dice render in prompt text (seed 000 "Macros").

These are the renderings that other modules reuse outside macro expansion (the lorebook's
``{{char}}``, the prompt's persona and ``<current-state>`` blocks), so they live apart from
the registry of handlers.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from engine.macro_context import MacroContext
from engine.session import Persona
from engine.world import WorldDefinition

_DICE = re.compile(r"^(\d*)d(\d+)(?:([+-])(\d+))?$", re.IGNORECASE)
_MAX_DICE = 1000


def character_name(world: WorldDefinition | None) -> str:
    """The ``{{char}}`` of a world: its first enabled ``character`` entry's name, else its name."""
    if world is None:
        return ""
    for entry in world.entries:
        if entry.role == "character" and entry.enabled and (entry.name or entry.id):
            return entry.name or entry.id
    return world.name


def user_name(world: WorldDefinition | None, context: MacroContext) -> str:
    """The ``{{user}}``: active persona's name, else the context's user, else playerName."""
    if context.persona is not None and context.persona.name:
        return context.persona.name
    if context.user:
        return context.user
    name = world.settings.player_name.strip() if world is not None else ""
    return name or "Player"


def format_persona(persona: Persona | None) -> str:
    """The persona's non-empty fields, one labelled line each."""
    if persona is None:
        return ""
    fields = (
        ("Name", persona.name),
        ("Appearance", persona.appearance),
        ("Personality", persona.personality),
        ("Backstory", persona.backstory),
    )
    return "\n".join(f"{label}: {value}" for label, value in fields if value)


def format_value(value: Any, *, as_json: bool = False) -> str:
    """Render a variable value for a prompt: compact JSON for structures, true/false, 100.0→100."""
    if not as_json:
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return str(int(value)) if value.is_integer() else str(value)
        if value is None:
            return ""
    value = _whole_floats(value)
    if as_json or isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def roll_dice(spec: str, rng: random.Random) -> int | None:
    """Roll ``NdS+M`` / ``NdS-M`` / ``NdS`` / ``dS`` / ``S``; None for a spec that is not dice."""
    spec = spec.replace(" ", "")
    if spec.isdigit():
        spec = f"1d{spec}"
    match = _DICE.match(spec)
    if match is None:
        return None
    count = int(match.group(1) or 1)
    sides = int(match.group(2))
    if not 1 <= count <= _MAX_DICE or sides < 1:
        return None
    total = sum(rng.randint(1, sides) for _ in range(count))
    if match.group(3):
        modifier = int(match.group(4))
        total += modifier if match.group(3) == "+" else -modifier
    return total


def _whole_floats(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: _whole_floats(v) for k, v in value.items()}
    return value
