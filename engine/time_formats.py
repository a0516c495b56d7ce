"""Dates, weekdays and durations in the world's language, for ``{{date}}``, ``{{weekday}}`` and
``{{idle}}`` (seed 000 "Macros" shows them in the reader's language; seed 004 "宏").

The per-language tables are long and change for reasons of their own (a new language), so they
sit apart from the macro handlers that use them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

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
