"""The report after an import (issue 16 §3): what was mapped, what was dropped and why, what
needs the creator's attention, one line per real problem rather than one per entry.

The importers leave one warning per entry and field (``engine.interop.worldinfo``, ``cards``);
here the warnings that say the same thing about many entries become one line with a count and a
few names ("12 entries use regex keys: Fabula matches them as plain text"), warnings that name a
value dropped or replaced keep their path, and the world itself says what was mapped.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from engine.messages import say
from engine.world import WorldDefinition

Kind = Literal["mapped", "dropped", "attention"]
_SHOWN = 3
# entries[3] ('Sword'): … / character_book.entries[0]: … / entry 'sword': …
_LABEL = re.compile(
    r"^(?:character_book\.)?entries\[[^\]]*\](?: \('(?P<name>.*?)'\))?: |^entry '(?P<id>[^']*)': "
)
# Same problem, many entries: a pattern on the rest of the line and the codes of the report line
# for one entry and for several (``engine.messages``: {n} is the count, {names} the first few
# entries, named groups of the pattern fill the rest).
_GROUPED: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(pattern), f"report-{code}-one", f"report-{code}-many")
    for pattern, code in (
        (r"^a /regex/ key is matched", "regex"),
        (r"^SillyTavern fires it [\d.]+% of the time", "probability"),
        (r"^SillyTavern inserts it (?P<where>.*?); ", "position"),
        (r"^'selective' is off", "selective"),
        (
            r"^SillyTavern settings with no Fabula equivalent kept in stExtensions: (?P<what>.*)",
            "settings",
        ),
        (r"^no 'enabled' flag", "no-enabled"),
        (r"^folder '.*' is unknown; cleared", "folder"),
    )
)
_DROPPED = re.compile(r"(; ignored|; skipped|; cleared|shortened)$")


@dataclass(frozen=True, slots=True)
class ReportLine:
    kind: Kind
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "message": self.message}


PICTURE_KEPT = "kept"


def import_report(
    world: WorldDefinition, warnings: list[str], *, picture: str | None = None
) -> list[ReportLine]:
    """The report of an import that gave ``world`` with ``warnings``: mapped, dropped, attention.

    ``picture`` is what became of a card's picture: ``PICTURE_KEPT`` (it is the world's portrait
    now), the reason it was dropped, or None when the file had none. Never raises.
    """
    attention, dropped = _sorted_warnings(warnings)
    mapped = mapped_lines(world)
    if picture == PICTURE_KEPT:
        mapped.append(say("report-picture-kept").english)
    elif picture:
        dropped.append(say("report-picture-dropped", reason=picture).english)
    return (
        [ReportLine("mapped", line) for line in mapped]
        + [ReportLine("dropped", line) for line in dropped]
        + [ReportLine("attention", line) for line in attention]
    )


def mapped_lines(world: WorldDefinition) -> list[str]:
    """What the import made of the file, part by part."""
    lines = _card_field_lines(world)
    rest = [e for e in world.entries if "stField" not in (e.model_extra or {})]
    lore = [e for e in rest if e.role == "lore"]
    if lore:
        keyword = sum(1 for e in lore if e.section == "chat-history")
        count = _count(len(lore), "entry", "entries")
        always = len(lore) - keyword
        lines.append(say("report-lorebook", count=count, keyword=keyword, always=always).english)
    greetings = sum(1 for e in rest if e.role == "greeting")
    if greetings:
        lines.append(_count(greetings, "greeting", "greetings"))
    others = len(rest) - len(lore) - greetings
    if others:
        count = _count(others, "more-entry", "more-entries")
        lines.append(say("report-more-entries", count=count).english)
    parts = [
        _count(n, one, many)
        for n, one, many in (
            (len(world.variables), "variable", "variables"),
            (len(world.rules), "rule", "rules"),
            (len(world.reactions or []), "reaction", "reactions"),
            (len(world.audio_tracks), "audio-track", "audio-tracks"),
            (len(world.entry_folders), "entry-folder", "entry-folders"),
        )
        if n
    ]
    if parts:
        lines.append(say("report-also", parts=", ".join(parts)).english)
    if (world.model_extra or {}).get("stCard"):
        lines.append(say("report-card-meta").english)
    return lines


def _card_field_lines(world: WorldDefinition) -> list[str]:
    fields = [
        str(field).split("[", 1)[0].removeprefix("extensions.").removesuffix(".prompt")
        for entry in world.entries
        if isinstance(field := (entry.model_extra or {}).get("stField"), str)
    ]
    if not fields:
        return []
    counts = Counter(fields)
    listed = ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in counts.items())
    count = _count(len(fields), "entry", "entries")
    return [say("report-card-fields", count=count, fields=listed).english]


def _count(n: int, one: str, many: str) -> str:
    """``n`` things in words: the message ``count-<one>`` or ``count-<many>``."""
    return say(f"count-{one}").english if n == 1 else say(f"count-{many}", n=n).english


def _sorted_warnings(warnings: list[str]) -> tuple[list[str], list[str]]:
    """(attention lines, dropped lines), per-entry repeats folded into one line each."""
    attention: list[str] = []
    dropped: list[str] = []
    groups: dict[tuple[int, str], list[tuple[str, str]]] = {}
    unknown_fields: list[str] = []
    for warning in warnings:
        if warning.endswith(": unknown field kept"):
            unknown_fields.append(warning.removesuffix(": unknown field kept"))
            continue
        grouped = _group(warning)
        if grouped is not None:
            index, where, name, what = grouped
            groups.setdefault((index, where), []).append((name, what))
        elif _DROPPED.search(warning):
            dropped.append(warning)
        else:
            attention.append(warning)
    for (index, where), found in groups.items():
        attention.append(_folded(index, where, found))
    if unknown_fields:
        shown = ", ".join(unknown_fields[:_SHOWN]) + (" …" if len(unknown_fields) > 3 else "")
        n = len(unknown_fields)
        attention.append(say("report-unknown-fields", n=n, fields=shown).english)
    return attention, dropped


def _group(warning: str) -> tuple[int, str, str, str] | None:
    """(pattern index, where, entry name, what) of a warning that repeats per entry."""
    label = _LABEL.match(warning)
    if label is None:
        return None
    rest = warning[label.end() :]
    name = label.group("name") or label.group("id") or label.group(0).rstrip(": ")
    for index, (pattern, _one, _many) in enumerate(_GROUPED):
        found = pattern.match(rest)
        if found:
            fill = found.groupdict()
            return index, fill.get("where") or "", name, fill.get("what") or ""
    return None


def _folded(index: int, where: str, found: list[tuple[str, str]]) -> str:
    names = [name for name, _ in found]
    what = ", ".join(sorted({w.strip() for _, text in found for w in text.split(",") if w}))
    _pattern, one, many = _GROUPED[index]
    code = one if len(names) == 1 else many
    shown = ", ".join(f"'{n}'" for n in names[:_SHOWN]) + (" …" if len(names) > _SHOWN else "")
    return say(code, n=len(names), where=where, what=what, names=shown).english
