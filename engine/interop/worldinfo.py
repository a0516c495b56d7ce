"""SillyTavern World Info ⇄ Fabula lorebook entries (W10 interop; seed 004 "条目与分区").

Three shapes come in: the native World Info file (``{"entries": {"<uid>": {key, keysecondary,
order, disable, …}}}``), its oldest form with a ``folders`` map, and a card's ``character_book``
(``{"entries": [{keys, secondary_keys, insertion_order, enabled, extensions: {…}}]}``). Each entry
is first put in native naming as SillyTavern itself reads it (``engine.interop.stentry``), then
mapped; whatever Fabula has no field for, and the original of what Fabula's fields cannot say
(a ``null`` flag, ``selective: false``, a probability switched off), is kept in the entry's
``stExtensions`` so that an export gives it back to SillyTavern as it was.
A ``fabula`` object on an entry (written by ``engine.interop.export``) restores the Fabula fields
SillyTavern has no place for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from engine.interop.common import (
    CardError,
    Coercer,
    IdAllocator,
    convert_text,
    json_safe,
    json_type,
)
from engine.interop.stentry import (
    AT_DEPTH,
    CONSUMED_FIELDS,
    DEFAULT_DEPTH,
    DEFAULT_ORDER,
    LOGIC_ORDER,
    NULLABLE_FLAGS,
    POSITIONS,
    SPEC_CASE_SENSITIVE,
    ST_ROLES,
    ST_TEMPLATE,
    STASHED_FIELDS,
    book_entry_to_native,
    is_book_entry,
)
from engine.world import Entry, EntryFolder, WorldDefinition

__all__ = ["AT_DEPTH", "DEFAULT_DEPTH", "LOGIC_ORDER", "NULLABLE_FLAGS", "ST_ROLES", "ST_TEMPLATE"]
_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_IGNORED_SECONDARY = (
    "'selective' is off, so SillyTavern ignored its secondary keys; Fabula applies them"
)
_ENTRY_KEYS = frozenset(f.alias or n for n, f in Entry.model_fields.items()) | {"stExtensions"}


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
    for index, (label, raw) in enumerate(items):
        where = f"entries[{label}]"
        if not isinstance(raw, Mapping):
            warnings.append(f"{where}: expected an object, got {json_type(raw)}; skipped")
            continue
        entry = _read_entry(raw, index, where, Coercer(warnings), ids)
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


def _read_entry(
    raw: Mapping[str, Any], index: int, where: str, coerce: Coercer, ids: IdAllocator
) -> Entry | None:
    book = is_book_entry(raw)
    flat = book_entry_to_native(raw, index) if book else dict(raw)
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
        "secondaryKeywordLogic": _logic(flat.get("selectiveLogic"), coerce, where),
        "preventRecursion": _flag(flat, "preventRecursion", coerce, where),
        "excludeRecursion": _flag(flat, "excludeRecursion", coerce, where),
        "caseSensitive": _flag(flat, "caseSensitive", coerce, where),
        "matchWholeWords": _flag(flat, "matchWholeWords", coerce, where),
    }
    if coerce.flag(flat.get("constant"), f"{where}.constant", False):
        fields["section"] = "system-presets"
    _originals(flat, fields, extra, coerce, where)
    if book and "enabled" not in raw:
        coerce.warn(f"{label}: no 'enabled' flag; disabled, as SillyTavern reads it")
    if extra.get("selective") is False and secondary and not stash:
        coerce.warn(f"{label}: {_IGNORED_SECONDARY}")
    restored = stash and stash.get("section", "chat-history") != "chat-history"
    _placement(flat, fields, extra, coerce, where, "" if restored else label)
    _probability(flat, extra, coerce, label)
    if not stash and any(k.startswith("/") and k.rfind("/") > 0 for k in keywords):
        coerce.warn(f"{label}: a /regex/ key is matched as plain text in Fabula")
    _flag_unmapped(extra, coerce, label)
    if extra:
        fields["stExtensions"] = json_safe(extra)
    return _build_entry(fields, stash, ids, coerce, label)


def _originals(
    flat: dict[str, Any], fields: dict[str, Any], extra: dict[str, Any], coerce: Coercer, where: str
) -> None:
    """Keep what SillyTavern reads that Fabula's fields cannot say, for the export to give back:
    a ``null`` flag ("use my global setting"), ``selective: false``, the comment behind a name
    Fabula made up."""
    for key in NULLABLE_FLAGS:
        if flat.get(key) is None:
            extra[key] = None
    if not coerce.flag(flat.get("selective"), f"{where}.selective", True):
        extra["selective"] = False
    comment = flat.get("comment")
    original = comment if isinstance(comment, str) else ""
    if original != fields["name"]:
        extra["comment"] = original


def _flag(flat: dict[str, Any], key: str, coerce: Coercer, where: str) -> bool:
    return coerce.flag(flat.get(key), f"{where}.{key}", False)


def derived_name(comment: str, keywords: list[str]) -> str:
    """The name Fabula gives an entry whose comment is ``comment`` (its first keyword if blank)."""
    return comment.strip() or (keywords[0] if keywords else "")


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
    """SillyTavern position/depth/role → Fabula depth and apiRole; the rest kept for export.

    An empty ``label`` keeps quiet about the position (an entry Fabula exported itself).
    """
    position = coerce.integer(flat.get("position"), f"{where}.position")
    depth = coerce.integer(flat.get("depth"), f"{where}.depth")
    role = _st_role(flat.get("role"))
    if position == AT_DEPTH:
        if depth is None or depth < 0:
            if depth is not None:
                coerce.warn(f"{label or where}: depth {depth} is negative; using {DEFAULT_DEPTH}")
            depth = DEFAULT_DEPTH
        fields["depth"] = depth
        fields["apiRole"] = ST_ROLES[role]
        return
    if position not in (None, 0):
        extra["position"] = position
        if position != 1 and label:
            where = POSITIONS.get(position, f"at position {position}")
            coerce.warn(
                f"{label}: SillyTavern inserts it {where}; "
                "Fabula sends it with the other triggered entries"
            )
    if depth is not None and depth != DEFAULT_DEPTH:
        extra["depth"] = depth
    if role or ("role" in flat and flat["role"] is None):
        extra["role"] = role or None  # null, as some SillyTavern versions save it


def _st_role(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(ST_ROLES):
        return value
    if isinstance(value, str) and value in ST_ROLES:
        return ST_ROLES.index(value)
    return 0


def _probability(flat: dict[str, Any], extra: dict[str, Any], coerce: Coercer, label: str) -> None:
    """Keep the probability as SillyTavern has it, even switched off; warn where it bites."""
    chance = flat.get("probability", 100)
    use = flat.get("useProbability", True)
    if chance != 100 or isinstance(chance, bool):
        extra["probability"] = chance
    if use is not True:
        extra["useProbability"] = use
    if use and isinstance(chance, int | float) and not isinstance(chance, bool) and chance < 100:
        extra["useProbability"] = True
        coerce.warn(
            f"{label}: SillyTavern fires it {chance:g}% of the time; Fabula fires it every time"
        )


def _leftovers(flat: dict[str, Any]) -> dict[str, Any]:
    """What Fabula has no field for and SillyTavern would not fill in by itself."""
    out = {}
    for key, value in flat.items():
        if key in CONSUMED_FIELDS:
            continue
        if key in ST_TEMPLATE:
            default = ST_TEMPLATE[key]
            if (value is None) == (default is None) and value == default:
                continue
        elif value in (None, False, "", [], {}):
            continue
        out[key] = value
    return out


def _flag_unmapped(extra: dict[str, Any], coerce: Coercer, label: str) -> None:
    quiet = {"position", "depth", "role", "probability", "useProbability", "extensions"}
    quiet |= {"selective", "comment", SPEC_CASE_SENSITIVE, *NULLABLE_FLAGS}
    names = sorted(k for k, v in extra.items() if k not in quiet and v not in (None, False))
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
        # The Fabula fields SillyTavern has no place for, and the entry's own unknown fields.
        kept = {k: v for k, v in stash.items() if k in STASHED_FIELDS or k not in _ENTRY_KEYS}
        candidate = {**fields, **kept}
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
