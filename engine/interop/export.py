"""A world's lorebook → a SillyTavern World Info file (W10 interop).

Every exported entry carries a ``fabula`` object (id, role, section, conditions…) that
SillyTavern ignores and ``engine.interop.worldinfo`` reads back, so world → World Info → world
keeps every field; what SillyTavern alone uses comes back from the entry's ``stExtensions``.
"""

from __future__ import annotations

from typing import Any

from engine.interop.worldinfo import AT_DEPTH, DEFAULT_DEPTH, LOGIC_ORDER, ST_DEFAULTS, ST_ROLES
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
        "entries": {str(uid): _export_entry(entry, uid) for uid, entry in enumerate(entries)}
    }
    used = {entry.folder_id for entry in entries if entry.folder_id is not None}
    folders = [f.model_dump(mode="json", by_alias=True) for f in world.entry_folders]
    if used:
        out["fabula"] = {"entryFolders": [f for f in folders if f["id"] in used]}
    return out


def _export_entry(entry: Entry, uid: int) -> dict[str, Any]:
    kept = dict((entry.model_extra or {}).get("stExtensions") or {})
    at_depth = entry.depth is not None
    position = AT_DEPTH if at_depth else kept.get("position", 0)
    if not at_depth and position == AT_DEPTH:
        position = 0
    role = ST_ROLES.index(entry.api_role) if at_depth else kept.get("role", 0)
    record: dict[str, Any] = {
        "uid": uid,
        "key": list(entry.keywords),
        "keysecondary": list(entry.secondary_keywords),
        "comment": entry.name,
        "content": entry.content,
        "constant": entry.section != "chat-history",
        "selective": True,
        "selectiveLogic": LOGIC_ORDER.index(entry.secondary_keyword_logic),
        "addMemo": True,
        "order": entry.position,
        "position": position,
        "disable": not entry.enabled,
        "excludeRecursion": entry.exclude_recursion,
        "preventRecursion": entry.prevent_recursion,
        "depth": entry.depth if at_depth else kept.get("depth", DEFAULT_DEPTH),
        "caseSensitive": entry.case_sensitive,
        "matchWholeWords": entry.match_whole_words,
        "role": role,
        "displayIndex": uid,
    }
    for key, value in {**ST_DEFAULTS, "probability": 100, "useProbability": True, **kept}.items():
        record.setdefault(key, value)
    record["fabula"] = _stash(entry)
    return record


def _stash(entry: Entry) -> dict[str, Any]:
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
    return stash
