"""Macros: ``{{placeholder}}`` text in entries, replaced at prompt time (seed 000 "Macros", seed
004 "宏").

Built-ins (names match case-insensitively, spaces inside the braces are ignored):

- identity: ``char`` (the context's char, else the first enabled ``character`` entry's name,
  else the world's name), ``user`` (the active persona's name first, as seeds 000 and 004 say,
  then the context's user, then ``settings.playerName``, then "Player" as seed 004 ends)
- persona: ``persona`` (the non-empty fields, one labelled line each), ``persona_name``,
  ``persona_appearance``, ``persona_personality``, ``persona_backstory``
- state: ``turnCount``, ``model``, ``lastMessage``, ``lastUserMessage``, ``lastCharMessage``
- randomness: ``random::a::b`` (the context's rng; without one, a ``Random`` seeded with the
  context's seed and turn, so it re-rolls each turn; ``engine.api`` passes a fresh rng when the
  caller pins neither, so it re-rolls on every expansion as seed 000 says), ``pick::a::b`` (a
  crc32 of the seed, the turn, the macro's offset in the text and its options: stable within a
  turn),
  ``roll::NdS+M`` (also ``NdS``, ``NdS-M``, ``dS``, ``S``)
- time (only when the context carries ``now``; otherwise they stay literal, and
  ``engine.api`` fills in the wall clock): ``time`` (HH:MM), ``date`` ("May 13, 2026"),
  ``weekday`` ("Wednesday"), ``isodate``, ``isotime`` (HH:MM:SS), ``idle`` ("5 minutes", from
  ``idle_seconds``); ``date``, ``weekday`` and ``idle`` follow the world's ``language`` for
  es, fr, de, pt, zh and ja ("13/5/2026", "miércoles", "5 minutos", as seed 000 shows)
- utilities: ``{{// comment}}`` vanishes, ``{{trim}}`` removes the whitespace around it

Any other name equal to a variable id (``{{player-health}}``) renders the variable's current
value: the state's, else its default; JSON variables as compact JSON, booleans as true/false,
whole floats as integers. Unknown macros, and macros whose handler fails, stay literal.

One regex pass over the text; macros do not nest (``{{random::{{char}}::x}}`` expands the inner
``{{char}}`` only), and a macro's output is never expanded again, so a variable or a chat
message holding ``{{...}}`` cannot inject macros.
"""

from __future__ import annotations

import json
import random
import re
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.session import Message, Persona, SessionState
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
            turn=_int(data.get("turn"), 0),
            char=_str_or_none(data.get("char")),
            user=_str_or_none(data.get("user")),
            persona=Persona.from_dict(persona) if isinstance(persona, dict) else None,
            now=parsed_now,
            seed=_int(seed, 0) if seed is not None else None,
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

_MACRO = re.compile(r"\{\{(?!\{)([^{}]*(?:(?:\{(?!\{)|\}(?!\}))[^{}]*)*)\}\}")
_TRIM = "\x00\ue000trim\ue000\x00"
_TRIM_AROUND = re.compile(r"\s*" + re.escape(_TRIM) + r"\s*")
_DICE = re.compile(r"^(\d*)d(\d+)(?:([+-])(\d+))?$", re.IGNORECASE)
_MAX_DICE = 1000
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# Seed 000 shows {{date}} "in the local format" (13/5/2026) and {{weekday}} in the reader's
# language (martes), {{idle}} as "5 minutos" and seed 004 as "5 分钟": the world's ``language``
# picks the format, English otherwise. Date patterns follow each locale's usual short date.
_LOCAL_WEEKDAYS: dict[str, tuple[str, ...]] = {
    "es": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
    "fr": ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
    "de": ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
    "pt": (
        "segunda-feira",
        "terça-feira",
        "quarta-feira",
        "quinta-feira",
        "sexta-feira",
        "sábado",
        "domingo",
    ),
    "zh": ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"),
    "ja": ("月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日"),
}
_LOCAL_DATES: dict[str, Callable[[datetime], str]] = {
    "es": lambda now: f"{now.day}/{now.month}/{now.year}",
    "fr": lambda now: f"{now:%d/%m/%Y}",
    "de": lambda now: f"{now.day}.{now.month}.{now.year}",
    "pt": lambda now: f"{now:%d/%m/%Y}",
    "zh": lambda now: f"{now.year}/{now.month}/{now.day}",
    "ja": lambda now: f"{now.year}/{now.month}/{now.day}",
}
# unit → (one, many); Chinese and Japanese put the count right before an invariable unit
_LOCAL_UNITS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {
        "day": (" day", " days"),
        "hour": (" hour", " hours"),
        "minute": (" minute", " minutes"),
        "second": (" second", " seconds"),
    },
    "es": {
        "day": (" día", " días"),
        "hour": (" hora", " horas"),
        "minute": (" minuto", " minutos"),
        "second": (" segundo", " segundos"),
    },
    "fr": {
        "day": (" jour", " jours"),
        "hour": (" heure", " heures"),
        "minute": (" minute", " minutes"),
        "second": (" seconde", " secondes"),
    },
    "de": {
        "day": (" Tag", " Tage"),
        "hour": (" Stunde", " Stunden"),
        "minute": (" Minute", " Minuten"),
        "second": (" Sekunde", " Sekunden"),
    },
    "pt": {
        "day": (" dia", " dias"),
        "hour": (" hora", " horas"),
        "minute": (" minuto", " minutos"),
        "second": (" segundo", " segundos"),
    },
    "zh": {
        "day": (" 天", " 天"),
        "hour": (" 小时", " 小时"),
        "minute": (" 分钟", " 分钟"),
        "second": (" 秒", " 秒"),
    },
    "ja": {
        "day": ("日", "日"),
        "hour": ("時間", "時間"),
        "minute": ("分", "分"),
        "second": ("秒", "秒"),
    },
}


def expand_macros(
    world: WorldDefinition | None,
    text: str,
    state: Mapping[str, Any] | SessionState | None = None,
    context: MacroContext | None = None,
) -> str:
    """Replace every macro in ``text``; unknown or failing macros are left exactly as written."""
    if "{{" not in text:
        return text
    ctx = context or MacroContext()
    values: Mapping[str, Any] = {}
    if isinstance(state, SessionState):
        values = state.values
    elif state is not None:
        values = state
    rng = ctx.rng or random.Random(f"{ctx.seed or 0}:{ctx.turn}")
    env = MacroEnv(world=world, values=values, context=ctx, rng=rng)
    table = _lookup_table()
    trimmed = False

    def replace(match: re.Match[str]) -> str:
        nonlocal trimmed
        body = match.group(1).strip()
        if body.startswith("//"):
            return ""
        name, *args = body.split("::")
        key = name.strip()
        try:
            handler = table.get(key.lower())
            if handler is not None:
                out = handler(env, args, match.start())
            elif not args:
                out = _variable(env, key)
            else:
                out = None
        except Exception:  # a broken macro must never break the prompt
            out = None
        if out is _TRIM:
            trimmed = True
        return match.group(0) if out is None else out

    result = _MACRO.sub(replace, text)
    if trimmed:
        result = _TRIM_AROUND.sub("", result)
    return result


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


def format_duration(seconds: float, language: str | None = None) -> str:
    """A human-readable duration in the largest whole unit: ``45 seconds``, ``1 minute``,
    ``3 hours``, ``2 days`` (``5 minutos``, ``5 分钟`` for a Spanish or Chinese world)."""
    units = _LOCAL_UNITS.get(locale_of(language), _LOCAL_UNITS["en"])
    seconds = max(0.0, seconds)
    count, unit = int(seconds), "second"
    for name, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count, unit = int(seconds // size), name
            break
    one, many = units[unit]
    return f"{count}{one if count == 1 else many}"


def locale_of(language: str | None) -> str:
    """The base language of a BCP 47 tag (``es-ES`` → ``es``); ``en`` when unset."""
    return (language or "en").strip().lower().replace("_", "-").split("-")[0] or "en"


def format_date(now: datetime, language: str | None = None) -> str:
    """``{{date}}``: the date in the language's usual short form, else ``May 13, 2026``."""
    render = _LOCAL_DATES.get(locale_of(language))
    return render(now) if render else f"{_MONTHS[now.month - 1]} {now.day}, {now.year}"


def format_weekday(now: datetime, language: str | None = None) -> str:
    """``{{weekday}}``: the day's name in the language, else in English."""
    return _LOCAL_WEEKDAYS.get(locale_of(language), _WEEKDAYS)[now.weekday()]


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


# --- handlers -----------------------------------------------------------------------------


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
    return _TRIM


def _variable(env: MacroEnv, key: str) -> str | None:
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

_table_cache: dict[str, MacroFn] = {}
_table_source: list[tuple[str, MacroFn]] = []


def _lookup_table() -> dict[str, MacroFn]:
    """MACROS keyed by lower-case name, rebuilt only when the registry changes."""
    global _table_cache
    current = list(MACROS.items())
    if current != _table_source:
        _table_source[:] = current
        _table_cache = {name.lower(): fn for name, fn in current}
    return _table_cache


def _whole_floats(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: _whole_floats(v) for k, v in value.items()}
    return value


def _int(value: Any, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return default


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
