"""A world's lorebook → a SillyTavern World Info file (W10 interop; issue 16 §3).

Every exported entry carries a ``fabula`` object (id, role, section, conditions…) that
SillyTavern ignores and ``engine.interop.worldinfo`` reads back, so world → World Info → world
keeps every field. What SillyTavern alone uses comes back from the entry's ``stExtensions``, and
so do the originals of what Fabula's fields cannot say: a ``null`` case/whole-word flag stays
``null`` while the Fabula flag is off, ``selective: false`` stays false, a probability switched
off keeps its number, a comment Fabula replaced by a name comes back while the name is unchanged.
Every field SillyTavern reads is written, missing ones with SillyTavern's own defaults.
"""

from __future__ import annotations

from typing import Any

from engine.interop.stentry import (
    AT_DEPTH,
    DEFAULT_DEPTH,
    EXAMPLES_BOTTOM,
    LOGIC_ORDER,
    NULLABLE_FLAGS,
    ST_ROLES,
    ST_TEMPLATE,
)
from engine.interop.worldinfo import derived_name
from engine.world import Entry, WorldDefinition


def lorebook_entries(world: WorldDefinition) -> list[Entry]:
    """The entries that make up a world's lorebook: keyword-triggered ones and always-sent lore."""
    return [
        entry
        for entry in world.entries
        if entry.section == "chat-history"
        or (entry.section == "system-presets" and entry.role == "lore")
    ]


def world_to_worldinfo(world: WorldDefinition) -> dict[str, Any]:
    """Export a world's lorebook as a SillyTavern World Info file (``{"entries": {"0": …}}``)."""
    entries = lorebook_entries(world)
    out: dict[str, Any] = {
        "entries": {str(uid): export_entry(entry, uid) for uid, entry in enumerate(entries)}
    }
    folders = entry_folders(world, entries)
    if folders:
        out["fabula"] = {"entryFolders": folders}
    return out


def entry_folders(world: WorldDefinition, entries: list[Entry]) -> list[dict[str, Any]]:
    """The folders ``entries`` sit in, as JSON (for the ``fabula`` object of a book)."""
    used = {entry.folder_id for entry in entries if entry.folder_id is not None}
    folders = [f.model_dump(mode="json", by_alias=True) for f in world.entry_folders]
    return [f for f in folders if f["id"] in used]


def export_entry(entry: Entry, uid: int) -> dict[str, Any]:
    """One entry as a native World Info entry, every field SillyTavern reads set."""
    kept = dict((entry.model_extra or {}).get("stExtensions") or {})
    position, depth, role = _placement(entry, kept)
    record: dict[str, Any] = {
        "uid": uid,
        "key": list(entry.keywords),
        "keysecondary": list(entry.secondary_keywords),
        "comment": _comment(entry, kept),
        "content": entry.content,
        "constant": entry.section != "chat-history",
        "selective": kept.get("selective", True) is not False,
        "selectiveLogic": LOGIC_ORDER.index(entry.secondary_keyword_logic),
        "addMemo": True,
        "order": entry.position,
        "position": position,
        "disable": not entry.enabled,
        "excludeRecursion": entry.exclude_recursion,
        "preventRecursion": entry.prevent_recursion,
        "depth": depth,
        "caseSensitive": entry.case_sensitive,
        "matchWholeWords": entry.match_whole_words,
        "role": role,
        "displayIndex": uid,
    }
    for key in NULLABLE_FLAGS:
        if key in kept and kept[key] is None and record[key] is False:
            record[key] = None
    for key, value in {**ST_TEMPLATE, **kept}.items():
        record.setdefault(key, value)
    record["fabula"] = _stash(entry, position)
    return record


def _placement(entry: Entry, kept: dict[str, Any]) -> tuple[int, int, int]:
    """SillyTavern's position, depth and role of an entry; Fabula's depth wins, then the kept
    originals. Post-history text goes at depth 0, other examples below the example messages."""
    if entry.depth is not None:
        return AT_DEPTH, entry.depth, ST_ROLES.index(entry.api_role)
    if entry.section == "post-history":
        return AT_DEPTH, 0, ST_ROLES.index(entry.api_role)
    default = EXAMPLES_BOTTOM if entry.section == "examples" else 0
    position = kept.get("position", default)
    if position == AT_DEPTH:
        position = default
    return position, kept.get("depth", DEFAULT_DEPTH), kept.get("role", 0)


def _comment(entry: Entry, kept: dict[str, Any]) -> Any:
    original = kept.get("comment")
    if isinstance(original, str) and entry.name == derived_name(original, entry.keywords):
        return original
    return entry.name


def _stash(entry: Entry, position: int) -> dict[str, Any]:
    data = entry.model_dump(mode="json", by_alias=True)
    stash: dict[str, Any] = {"id": entry.id, "role": entry.role, "section": entry.section}
    if not entry.name:
        stash["name"] = ""
    defaults: dict[str, Any] = {
        "apiRole": "system",
        "tags": [],
        "folderId": None,
        "conditions": [],
        "conditionLogic": "all",
    }
    for key, default in defaults.items():
        if data[key] != default:
            stash[key] = data[key]
    if position == AT_DEPTH and entry.depth is None:
        stash["depth"] = None  # post-history text sent at depth 0 in SillyTavern
    for key, value in (entry.model_extra or {}).items():
        if key != "stExtensions":
            stash.setdefault(key, value)  # unknown fields of the entry, kept as they are
    return stash
