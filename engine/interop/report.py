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

from engine.world import WorldDefinition

Kind = Literal["mapped", "dropped", "attention"]
_SHOWN = 3
# entries[3] ('Sword'): … / character_book.entries[0]: … / entry 'sword': …
_LABEL = re.compile(
    r"^(?:character_book\.)?entries\[[^\]]*\](?: \('(?P<name>.*?)'\))?: |^entry '(?P<id>[^']*)': "
)
# Same problem, many entries: a pattern on the rest of the line, the report line for one entry
# and for several ({n} is the count, named groups of the pattern fill the rest).
_GROUPED: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(pattern), one, many)
    for pattern, one, many in (
        (
            r"^a /regex/ key is matched",
            "1 entry uses regex keys: Fabula matches them as plain text",
            "{n} entries use regex keys: Fabula matches them as plain text",
        ),
        (
            r"^SillyTavern fires it [\d.]+% of the time",
            "1 entry fires only part of the time in SillyTavern (probability); Fabula fires it "
            "every time",
            "{n} entries fire only part of the time in SillyTavern (probability); Fabula fires "
            "them every time",
        ),
        (
            r"^SillyTavern inserts it (?P<where>.*?); ",
            "1 entry is inserted {where} in SillyTavern; Fabula sends it with the other "
            "triggered entries",
            "{n} entries are inserted {where} in SillyTavern; Fabula sends them with the other "
            "triggered entries",
        ),
        (
            r"^'selective' is off",
            "1 entry has secondary keys SillyTavern ignored ('selective' off); Fabula applies them",
            "{n} entries have secondary keys SillyTavern ignored ('selective' off); Fabula "
            "applies them",
        ),
        (
            r"^SillyTavern settings with no Fabula equivalent kept in stExtensions: (?P<what>.*)",
            "1 entry uses SillyTavern settings Fabula does not apply ({what}); kept for the export",
            "{n} entries use SillyTavern settings Fabula does not apply ({what}); kept for the "
            "export",
        ),
        (
            r"^no 'enabled' flag",
            "1 entry has no 'enabled' flag: disabled, as SillyTavern reads it",
            "{n} entries have no 'enabled' flag: disabled, as SillyTavern reads them",
        ),
        (
            r"^folder '.*' is unknown; cleared",
            "1 entry names a folder the file does not have: cleared",
            "{n} entries name a folder the file does not have: cleared",
        ),
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
        mapped.append("the card's picture → the world's portrait")
    elif picture:
        dropped.append(f"the card's picture: {picture}; it is not kept")
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
        lines.append(
            f"lorebook → {_count(len(lore), 'entry', 'entries')} ({keyword} keyword-triggered, "
            f"{len(lore) - keyword} always sent)"
        )
    greetings = sum(1 for e in rest if e.role == "greeting")
    if greetings:
        lines.append(_count(greetings, "greeting", "greetings"))
    others = len(rest) - len(lore) - greetings
    if others:
        lines.append(_count(others, "more entry", "more entries") + " with their Fabula roles")
    parts = [
        _count(n, one, many)
        for n, one, many in (
            (len(world.variables), "variable", "variables"),
            (len(world.rules), "rule", "rules"),
            (len(world.reactions or []), "reaction", "reactions"),
            (len(world.audio_tracks), "audio track", "audio tracks"),
            (len(world.entry_folders), "entry folder", "entry folders"),
        )
        if n
    ]
    if parts:
        lines.append("also: " + ", ".join(parts))
    if (world.model_extra or {}).get("stCard"):
        lines.append("creator notes → description, creator → author, tags → custom tags")
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
    return [f"card fields → {_count(len(fields), 'entry', 'entries')}: {listed}"]


def _count(n: int, one: str, many: str) -> str:
    return f"1 {one}" if n == 1 else f"{n} {many}"


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
        attention.append(f"{len(unknown_fields)} fields Fabula does not know are kept: {shown}")
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
    text = one if len(names) == 1 else many
    shown = ", ".join(f"'{n}'" for n in names[:_SHOWN]) + (" …" if len(names) > _SHOWN else "")
    return text.format(n=len(names), where=where, what=what) + f" ({shown})"
