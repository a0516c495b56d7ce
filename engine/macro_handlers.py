"""The built-in macro handlers and the ``MACROS`` registry they fill (seed 000 "Macros", seed
004 "宏"); ``engine.macros`` documents each one and runs them.

A registry of plain functions, apart from the expansion pass, so adding a macro touches only this
module.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from datetime import datetime

from engine.macro_context import MacroEnv, MacroFn
from engine.macro_formats import (
    character_name,
    format_persona,
    format_value,
    roll_dice,
    user_name,
)
from engine.time_formats import format_date, format_duration, format_weekday

# What ``{{trim}}`` leaves in the text until the expansion removes it with the whitespace around.
TRIM = "\x00\ue000trim\ue000\x00"


def _char(env: MacroEnv, args: list[str], offset: int) -> str | None:
    return env.context.char or character_name(env.world)


def _user(env: MacroEnv, args: list[str], offset: int) -> str | None:
    return user_name(env.world, env.context)


def _persona(env: MacroEnv, args: list[str], offset: int) -> str | None:
    return format_persona(env.context.persona)


def _persona_field(name: str) -> MacroFn:
    def handler(env: MacroEnv, args: list[str], offset: int) -> str | None:
        persona = env.context.persona
        return str(getattr(persona, name)) if persona is not None else ""

    return handler


def _turn_count(env: MacroEnv, args: list[str], offset: int) -> str | None:
    return str(env.context.turn)


def _model(env: MacroEnv, args: list[str], offset: int) -> str | None:
    return env.context.model


def _random(env: MacroEnv, args: list[str], offset: int) -> str | None:
    return env.rng.choice(args) if args else None


def _pick(env: MacroEnv, args: list[str], offset: int) -> str | None:
    if not args:
        return None
    key = f"{env.context.seed or 0}|{env.context.turn}|{offset}|{'::'.join(args)}"
    return args[zlib.crc32(key.encode("utf-8")) % len(args)]


def _roll(env: MacroEnv, args: list[str], offset: int) -> str | None:
    if len(args) != 1:
        return None
    total = roll_dice(args[0], env.rng)
    return None if total is None else str(total)


def _clock(render: Callable[[datetime, str | None], str]) -> MacroFn:
    def handler(env: MacroEnv, args: list[str], offset: int) -> str | None:
        now = env.context.now
        return render(now, _language(env)) if now is not None else None

    return handler


def _language(env: MacroEnv) -> str | None:
    return env.world.language if env.world is not None else None


def _idle(env: MacroEnv, args: list[str], offset: int) -> str | None:
    seconds = env.context.idle_seconds
    return format_duration(seconds, _language(env)) if seconds is not None else None


def _last(role: str | None) -> MacroFn:
    def handler(env: MacroEnv, args: list[str], offset: int) -> str | None:
        for message in reversed(env.context.messages):
            if role is None or message.role == role:
                return message.content
        return ""

    return handler


def _comment(env: MacroEnv, args: list[str], offset: int) -> str | None:
    return ""


def _trim(env: MacroEnv, args: list[str], offset: int) -> str | None:
    return TRIM


def variable_text(env: MacroEnv, key: str) -> str | None:
    variable = env.world.variables_by_id.get(key) if env.world is not None else None
    if key in env.values:
        value = env.values[key]
    elif variable is not None:
        value = variable.default_value
    else:
        return None
    return format_value(value, as_json=variable is not None and variable.type == "json")


MACROS: dict[str, MacroFn] = {
    "char": _char,
    "user": _user,
    "persona": _persona,
    "persona_name": _persona_field("name"),
    "persona_appearance": _persona_field("appearance"),
    "persona_personality": _persona_field("personality"),
    "persona_backstory": _persona_field("backstory"),
    "turnCount": _turn_count,
    "model": _model,
    "random": _random,
    "pick": _pick,
    "roll": _roll,
    "time": _clock(lambda now, language: f"{now:%H:%M}"),
    "date": _clock(format_date),
    "weekday": _clock(format_weekday),
    "isodate": _clock(lambda now, language: now.date().isoformat()),
    "isotime": _clock(lambda now, language: f"{now:%H:%M:%S}"),
    "idle": _idle,
    "lastMessage": _last(None),
    "lastUserMessage": _last("user"),
    "lastCharMessage": _last("assistant"),
    "//": _comment,
    "trim": _trim,
}
