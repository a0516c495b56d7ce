"""What macros read: the ``MacroContext`` a caller passes, the ``MacroEnv`` a handler gets, and
the handler type of the ``MACROS`` registry (seed 000 "Macros").

Apart from the expansion and the handlers so every module that only builds a context (the turn,
the prompt, the studio preview) imports a small module of plain data.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.session import Message, Persona
from engine.world import WorldDefinition


@dataclass
class MacroContext:
    """Everything macros read besides the world and the variables."""

    turn: int = 0
    char: str | None = None
    user: str | None = None
    persona: Persona | None = None
    now: datetime | None = None
    seed: int | None = None
    model: str = ""
    messages: list[Message] = field(default_factory=list)
    idle_seconds: float | None = None
    rng: random.Random | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MacroContext:
        """Build a context from its JSON form; unusable fields are left at their defaults."""
        now = data.get("now")
        parsed_now: datetime | None = None
        if isinstance(now, str):
            try:
                parsed_now = datetime.fromisoformat(now)
            except ValueError:
                parsed_now = None
        persona = data.get("persona")
        messages = data.get("messages") or []
        idle = data.get("idle_seconds", data.get("idleSeconds"))
        seed = data.get("seed")
        return cls(
            turn=int_or(data.get("turn"), 0),
            char=str_or_none(data.get("char")),
            user=str_or_none(data.get("user")),
            persona=Persona.from_dict(persona) if isinstance(persona, dict) else None,
            now=parsed_now,
            seed=int_or(seed, 0) if seed is not None else None,
            model=str(data.get("model") or ""),
            messages=[Message.from_dict(m) for m in messages if isinstance(m, dict)],
            idle_seconds=float(idle) if isinstance(idle, int | float) else None,
        )


@dataclass
class MacroEnv:
    """What a macro handler sees: the world, the variable values, the context and an rng."""

    world: WorldDefinition | None
    values: Mapping[str, Any]
    context: MacroContext
    rng: random.Random


# A handler gets the env, the ``::``-separated arguments and the macro's offset in the text;
# it returns the replacement, or None to leave the macro literal.
MacroFn = Callable[[MacroEnv, list[str], int], str | None]


def int_or(value: Any, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return default


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
