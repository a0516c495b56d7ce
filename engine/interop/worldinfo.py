"""SillyTavern World Info ⇄ Fabula lorebook entries (W10 interop; seed 004 "条目与分区").

Three shapes come in: the native World Info file (``{"entries": {"<uid>": {key, keysecondary,
order, disable, …}}}``), its oldest form with a ``folders`` map, and a card's ``character_book``
(``{"entries": [{keys, secondary_keys, insertion_order, enabled, extensions: {…}}]}``). Each entry
is first flattened to native field names, then mapped; whatever Fabula has no field for is kept
in the entry's ``stExtensions`` so that an export gives it back to SillyTavern.
A ``fabula`` object on an entry (written by ``engine.interop.export``) restores the Fabula fields
SillyTavern has no place for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from engine.interop.common import (
    CardError,
    Coercer,
    IdAllocator,
    convert_text,
    json_safe,
    json_type,
)
from engine.world import Entry, EntryFolder, WorldDefinition

LOGIC_ORDER = ("AND_ANY", "NOT_ALL", "NOT_ANY", "AND_ALL")  # SillyTavern's selectiveLogic 0..3
ST_ROLES = ("system", "user", "assistant")  # SillyTavern's role 0..2
AT_DEPTH = 4
DEFAULT_DEPTH = 4
DEFAULT_ORDER = 100
_POSITIONS = {
    0: "before the character",
    1: "after the character",
    2: "at the top of the author's note",
    3: "at the bottom of the author's note",
    4: "at a depth",
    5: "at the top of the example messages",
    6: "at the bottom of the example messages",
    7: "in an outlet",
}
_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

# Native fields read into Fabula fields (or dropped as pure editor state).
_CONSUMED = frozenset(
    [
        "uid",
        "id",
        "key",
        "keysecondary",
        "comment",
        "name",
        "title",
        "content",
        "constant",
        "selective",
        "selectiveLogic",
        "order",
        "position",
        "disable",
        "enabled",
        "excludeRecursion",
        "preventRecursion",
        "depth",
        "caseSensitive",
        "matchWholeWords",
        "probability",
        "useProbability",
        "role",
        "displayIndex",
        "addMemo",
        "useRegex",
        "fabula",
    ]
)
# What a fresh SillyTavern entry holds; leftovers equal to these are not worth keeping.
ST_DEFAULTS: dict[str, Any] = {
    "vectorized": False,
    "group": "",
    "groupOverride": False,
    "groupWeight": 100,
    "scanDepth": None,
    "useGroupScoring": None,
    "automationId": "",
    "sticky": 0,
    "cooldown": 0,
    "delay": 0,
    "delayUntilRecursion": False,
}
_STASHED = ("role", "apiRole", "section", "tags", "folderId", "conditions", "conditionLogic")


# --- import ------------------------------------------------------------------------------


def worldinfo_to_entries(
    data: Mapping[str, Any],
    *,
    warnings: list[str] | None = None,
    ids: IdAllocator | None = None,
) -> list[Entry]:
    """Map a World Info file or a card's ``character_book`` to Fabula entries.

    Raises CardError only when ``data`` has no ``entries`` at all; a bad entry or field is
    coerced or skipped, with a line in ``warnings``.
    """
    entries, _folders = read_lorebook(data, warnings if warnings is not None else [], ids)
    return entries


def worldinfo_to_world(data: Mapping[str, Any], name: str) -> WorldDefinition:
    """Build a world of a World Info file's entries; ``world.warnings`` lists what was forgiven.

    Raises CardError when ``data`` is not World Info at all.
    """
    warnings: list[str] = []
    entries, folders = read_lorebook(data, warnings)
    coerce = Coercer(warnings)
    title = name.strip() or coerce.text(data.get("name"), "name").strip() or "Imported World Info"
    world = WorldDefinition.model_validate(
        {
            "name": title[:200],
            "description": coerce.text(data.get("description"), "description")[:10000],
            "entries": entries,
            "entryFolders": folders,
            "settings": book_settings(data, coerce),
        }
    )
    world._warnings = warnings
    return world


def book_settings(book: Mapping[str, Any], coerce: Coercer) -> dict[str, Any]:
    """World settings from a character book's ``scan_depth`` and ``recursive_scanning``."""
    settings: dict[str, Any] = {}
    scan_depth = coerce.integer(book.get("scan_depth"), "scan_depth")
    if scan_depth is not None and scan_depth >= 0:
        settings["lorebookScanDepth"] = scan_depth
    if coerce.flag(book.get("recursive_scanning"), "recursive_scanning", False):
        # SillyTavern bounds recursion by budget, not steps; three steps covers real books.
        settings["lorebookRecursionDepth"] = 3
    return settings


def read_lorebook(
    data: Mapping[str, Any], warnings: list[str], ids: IdAllocator | None = None
) -> tuple[list[Entry], list[EntryFolder]]:
    """Entries and folders of any World Info shape; CardError when there are no entries."""
    if not isinstance(data, Mapping):
        raise CardError(
            f"World Info JSON is invalid: expected an object with 'entries', got {json_type(data)}"
        )
    raw_entries = data.get("entries")
    if isinstance(raw_entries, Mapping):
        items = [(str(k), v) for k, v in raw_entries.items()]
    elif isinstance(raw_entries, list):
        items = [(str(i), v) for i, v in enumerate(raw_entries)]
    else:
        found = "none" if raw_entries is None else json_type(raw_entries)
        raise CardError(
            f"World Info JSON is invalid: 'entries' must be an object or array, {found}"
        )
    ids = ids or IdAllocator()
    folders, folder_of = _read_folders(data, warnings)
    entries: list[Entry] = []
    for label, raw in items:
        where = f"entries[{label}]"
        if not isinstance(raw, Mapping):
            warnings.append(f"{where}: expected an object, got {json_type(raw)}; skipped")
            continue
        entry = _read_entry(raw, where, Coercer(warnings), ids)
        if entry is None:
            continue
        uid = raw.get("uid", raw.get("id", label))
        if entry.folder_id is None and str(uid) in folder_of:
            entry.folder_id = folder_of[str(uid)]
        entries.append(entry)
    known = {folder.id for folder in folders}
    for entry in entries:
        if entry.folder_id is not None and entry.folder_id not in known:
            warnings.append(f"entry '{entry.id}': folder '{entry.folder_id}' is unknown; cleared")
            entry.folder_id = None
    return entries, folders


def _read_folders(
    data: Mapping[str, Any], warnings: list[str]
) -> tuple[list[EntryFolder], dict[str, str]]:
    folders: list[EntryFolder] = []
    folder_of: dict[str, str] = {}
    stash = data.get("fabula")
    if isinstance(stash, Mapping) and isinstance(stash.get("entryFolders"), list):
        for raw in stash["entryFolders"]:
            try:
                folders.append(EntryFolder.model_validate(raw))
            except ValidationError:
                warnings.append("fabula.entryFolders: skipped a malformed folder")
    legacy = data.get("folders")
    if legacy is None:
        return folders, folder_of
    if not isinstance(legacy, Mapping):
        warnings.append(f"folders: expected an object, got {json_type(legacy)}; ignored")
        return folders, folder_of
    ids = IdAllocator({folder.id for folder in folders}, fallback="folder")
    for name, members in legacy.items():
        folder = EntryFolder(id=ids.allocate(str(name)), name=str(name))
        folders.append(folder)
        for uid in members if isinstance(members, list) else []:
            folder_of.setdefault(str(uid), folder.id)
    return folders, folder_of


def _flatten(raw: Mapping[str, Any]) -> dict[str, Any]:
    """One entry in native World Info naming, whichever shape it came in."""
    if "keys" not in raw and "insertion_order" not in raw and "secondary_keys" not in raw:
        return dict(raw)
    # character_book: SillyTavern keeps its own fields in snake_case under `extensions`.
    extensions = raw.get("extensions")
    flat = {to_camel(k): v for k, v in extensions.items()} if isinstance(extensions, dict) else {}
    renames = {
        "keys": "key",
        "secondary_keys": "keysecondary",
        "insertion_order": "order",
        "case_sensitive": "caseSensitive",
        "use_regex": "useRegex",
    }
    for key, value in raw.items():
        if key in ("extensions", "position"):
            continue
        if key == "case_sensitive" and value is None:
            continue
        flat[renames.get(key, key)] = value
    if not isinstance(flat.get("position"), int):
        flat["position"] = 1 if raw.get("position") == "after_char" else 0
    if "enabled" in flat and "disable" not in flat:
        flat["disable"] = flat["enabled"] is False
    return flat


def _read_entry(
    raw: Mapping[str, Any], where: str, coerce: Coercer, ids: IdAllocator
) -> Entry | None:
    flat = _flatten(raw)
    stash = flat.get("fabula") if isinstance(flat.get("fabula"), Mapping) else None
    keywords = coerce.strings(flat.get("key"), f"{where}.key")
    secondary = coerce.strings(flat.get("keysecondary"), f"{where}.keysecondary")
    name = _entry_name(flat, keywords, coerce, where)
    content = coerce.text(flat.get("content"), f"{where}.content")
    label = f"{where} ('{name}')" if name else where
    extra = _leftovers(flat)
    fields: dict[str, Any] = {
        "name": name,
        "content": content if stash else convert_text(content),
        "role": "lore",
        "section": "chat-history",
        "position": _order(flat, coerce, where),
        "enabled": not coerce.flag(flat.get("disable"), f"{where}.disable", False),
        "keywords": keywords,
        "secondaryKeywords": secondary,
        "preventRecursion": _flag(flat, "preventRecursion", coerce, where),
        "excludeRecursion": _flag(flat, "excludeRecursion", coerce, where),
        "caseSensitive": _flag(flat, "caseSensitive", coerce, where),
        "matchWholeWords": _flag(flat, "matchWholeWords", coerce, where),
    }
    if coerce.flag(flat.get("constant"), f"{where}.constant", False):
        fields["section"] = "system-presets"
    selective = coerce.flag(flat.get("selective"), f"{where}.selective", True)
    if selective or secondary:
        fields["secondaryKeywordLogic"] = _logic(flat.get("selectiveLogic"), coerce, where)
    if secondary and not selective and not stash:
        coerce.warn(
            f"{label}: 'selective' is off, so SillyTavern ignored its secondary keys; "
            "Fabula applies them"
        )
    _placement(flat, fields, extra, coerce, where, label)
    _probability(flat, extra, coerce, where, label)
    if _flag(flat, "useRegex", coerce, where):
        coerce.warn(f"{label}: regex keys are matched as plain words in Fabula")
    if not stash and any(k.startswith("/") and k.rfind("/") > 0 for k in keywords):
        coerce.warn(f"{label}: a /regex/ key is matched as plain text in Fabula")
    _flag_unmapped(extra, coerce, label)
    if extra:
        fields["stExtensions"] = json_safe(extra)
    return _build_entry(fields, stash, ids, coerce, label)


def _flag(flat: dict[str, Any], key: str, coerce: Coercer, where: str) -> bool:
    return coerce.flag(flat.get(key), f"{where}.{key}", False)


def _entry_name(flat: dict[str, Any], keywords: list[str], coerce: Coercer, where: str) -> str:
    stash = flat.get("fabula")
    if isinstance(stash, Mapping) and isinstance(stash.get("name"), str):
        return str(stash["name"])
    for field in ("comment", "name", "title"):
        text = coerce.text(flat.get(field), f"{where}.{field}").strip()
        if text:
            return text
    return keywords[0] if keywords else ""


def _order(flat: dict[str, Any], coerce: Coercer, where: str) -> int:
    order = coerce.integer(flat.get("order"), f"{where}.order")
    return DEFAULT_ORDER if order is None else order


def _logic(value: Any, coerce: Coercer, where: str) -> str:
    if isinstance(value, str) and value in LOGIC_ORDER:
        return value
    index = coerce.integer(value, f"{where}.selectiveLogic") if value is not None else 0
    if index is None or not 0 <= index < len(LOGIC_ORDER):
        coerce.warn(f"{where}.selectiveLogic: unknown value {value!r}; using AND_ANY")
        return "AND_ANY"
    return LOGIC_ORDER[index]


def _placement(
    flat: dict[str, Any],
    fields: dict[str, Any],
    extra: dict[str, Any],
    coerce: Coercer,
    where: str,
    label: str,
) -> None:
    """SillyTavern position/depth/role → Fabula depth and apiRole; the rest kept for export."""
    position = coerce.integer(flat.get("position"), f"{where}.position")
    depth = coerce.integer(flat.get("depth"), f"{where}.depth")
    role = _st_role(flat.get("role"))
    if position == AT_DEPTH:
        if depth is None or depth < 0:
            if depth is not None:
                coerce.warn(f"{label}: depth {depth} is negative; using {DEFAULT_DEPTH}")
            depth = DEFAULT_DEPTH
        fields["depth"] = depth
        fields["apiRole"] = ST_ROLES[role]
        return
    if position not in (None, 0):
        extra["position"] = position
        if position != 1:
            where = _POSITIONS.get(position, f"at position {position}")
            coerce.warn(
                f"{label}: SillyTavern inserts it {where}; "
                "Fabula sends it with the other triggered entries"
            )
    if depth is not None and depth != DEFAULT_DEPTH:
        extra["depth"] = depth
    if role:
        extra["role"] = role


def _st_role(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(ST_ROLES):
        return value
    if isinstance(value, str) and value in ST_ROLES:
        return ST_ROLES.index(value)
    return 0


def _probability(
    flat: dict[str, Any], extra: dict[str, Any], coerce: Coercer, where: str, label: str
) -> None:
    chance = flat.get("probability")
    use = coerce.flag(flat.get("useProbability"), f"{where}.useProbability", True)
    if chance is None or isinstance(chance, bool) or not isinstance(chance, int | float):
        return
    if use and chance < 100:
        extra["probability"] = chance
        extra["useProbability"] = True
        coerce.warn(
            f"{label}: SillyTavern fires it {chance:g}% of the time; Fabula fires it every time"
        )


def _leftovers(flat: dict[str, Any]) -> dict[str, Any]:
    return {
        key: value
        for key, value in flat.items()
        if key not in _CONSUMED
        and value not in (None, False, "", [], {})
        and not (key in ST_DEFAULTS and value == ST_DEFAULTS[key])
    }


def _flag_unmapped(extra: dict[str, Any], coerce: Coercer, label: str) -> None:
    names = sorted(k for k in extra if k not in ("position", "depth", "role", "probability"))
    names = [k for k in names if k not in ("useProbability", "extensions")]
    if names:
        coerce.warn(
            f"{label}: SillyTavern settings with no Fabula equivalent kept in stExtensions: "
            + ", ".join(names)
        )


def _build_entry(
    fields: dict[str, Any],
    stash: Mapping[str, Any] | None,
    ids: IdAllocator,
    coerce: Coercer,
    label: str,
) -> Entry | None:
    stash_id = stash.get("id") if stash else None
    if isinstance(stash_id, str) and _KEBAB.match(stash_id) and ids.claim(stash_id):
        fields["id"] = stash_id
    else:
        fields["id"] = ids.allocate(fields["name"])
    if stash:
        candidate = {**fields, **{k: stash[k] for k in _STASHED if k in stash}}
        try:
            return Entry.model_validate(candidate)
        except ValidationError:
            coerce.warn(f"{label}: the 'fabula' fields are invalid; ignored")
    try:
        return Entry.model_validate(fields)
    except ValidationError as exc:
        problems = "; ".join(str(err["msg"]) for err in exc.errors())
        coerce.warn(f"{label}: cannot be imported ({problems}); skipped")
        return None
