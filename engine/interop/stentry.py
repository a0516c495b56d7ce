"""SillyTavern's World Info entry, as SillyTavern itself reads and writes it (W10 interop).

Two shapes carry the same entry: the native World Info entry (``key``, ``order``, ``disable``…,
``ST_TEMPLATE`` lists the value SillyTavern gives each field it finds missing) and a character
card's ``character_book`` entry (``keys``, ``insertion_order``, ``enabled`` and the rest in
``extensions`` in snake_case). ``book_entry_to_native`` and ``native_to_book_entry`` convert
between them the way SillyTavern's own ``convertCharacterBook`` and
``convertWorldInfoToCharacterBook`` do, defaults included, so that whatever SillyTavern would read
from one shape it reads from the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic.alias_generators import to_camel, to_snake

LOGIC_ORDER = ("AND_ANY", "NOT_ALL", "NOT_ANY", "AND_ALL")  # SillyTavern's selectiveLogic 0..3
ST_ROLES = ("system", "user", "assistant")  # SillyTavern's role 0..2
AT_DEPTH = 4
EXAMPLES_BOTTOM = 6
DEFAULT_DEPTH = 4
DEFAULT_ORDER = 100
POSITIONS = {
    0: "before the character",
    1: "after the character",
    2: "at the top of the author's note",
    3: "at the bottom of the author's note",
    4: "at a depth",
    5: "at the top of the example messages",
    6: "at the bottom of the example messages",
    7: "in an outlet",
}

# Native fields the importer reads into Fabula fields (or drops as pure editor state: uid,
# displayIndex, addMemo; ``useRegex`` says nothing, SillyTavern tells a regex key by its slashes).
CONSUMED_FIELDS = frozenset(
    {
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
    }
)
# The Fabula fields an exported entry's ``fabula`` object restores.
STASHED_FIELDS = (
    "role",
    "apiRole",
    "section",
    "tags",
    "folderId",
    "conditions",
    "conditionLogic",
    "depth",
)
# Fields whose ``null`` SillyTavern reads as "use my global setting", and Fabula as false.
NULLABLE_FLAGS = ("caseSensitive", "matchWholeWords")
# A book entry's top-level ``case_sensitive`` (the V2 spec's field), kept in ``stExtensions``
# when Fabula took its flag from it: SillyTavern reads only ``extensions.case_sensitive``, so an
# export whose flag still says the same writes that back as the card had it (null: "ATLAS"
# still fires for the key "Atlas" there) and the spec's field where it was.
SPEC_CASE_SENSITIVE = "specCaseSensitive"

# SillyTavern's new-entry template (``newWorldInfoEntryDefinition``): the value of every field
# an entry leaves out. ``null`` is a value of its own: "use my global setting".
ST_TEMPLATE: dict[str, Any] = {
    "constant": False,
    "vectorized": False,
    "selective": True,
    "selectiveLogic": 0,
    "addMemo": False,
    "order": DEFAULT_ORDER,
    "position": 0,
    "disable": False,
    "ignoreBudget": False,
    "excludeRecursion": False,
    "preventRecursion": False,
    "matchPersonaDescription": False,
    "matchCharacterDescription": False,
    "matchCharacterPersonality": False,
    "matchCharacterDepthPrompt": False,
    "matchScenario": False,
    "matchCreatorNotes": False,
    "delayUntilRecursion": False,
    "probability": 100,
    "useProbability": True,
    "depth": DEFAULT_DEPTH,
    "outletName": "",
    "group": "",
    "groupOverride": False,
    "groupWeight": 100,
    "scanDepth": None,
    "caseSensitive": None,
    "matchWholeWords": None,
    "useGroupScoring": None,
    "automationId": "",
    "role": 0,
    "sticky": None,
    "cooldown": None,
    "delay": None,
    "triggers": [],
}
# Native field → the name of its copy in a book entry's ``extensions`` (where it differs from
# plain snake_case, or where SillyTavern keeps the camelCase name).
_EXTENSION_NAMES = {
    "displayIndex": "display_index",
    "useProbability": "useProbability",
    "selectiveLogic": "selectiveLogic",
}
# Native fields a book entry carries in ``extensions`` (everything but the book's own fields).
_BOOK_EXTENSIONS = tuple(
    key
    for key in (*ST_TEMPLATE, "displayIndex")
    if key not in ("constant", "selective", "order", "disable", "addMemo", "key", "keysecondary")
)
# A book entry's own fields and their native names.
_BOOK_FIELDS = {
    "keys": "key",
    "secondary_keys": "keysecondary",
    "comment": "comment",
    "content": "content",
    "constant": "constant",
    "selective": "selective",
    "insertion_order": "order",
    "enabled": "enabled",
    "position": "position",
    "id": "uid",
    "use_regex": "useRegex",
    "case_sensitive": "caseSensitive",
}


def extension_name(native: str) -> str:
    return _EXTENSION_NAMES.get(native, to_snake(native))


def is_book_entry(raw: Mapping[str, Any]) -> bool:
    """A ``character_book`` entry (V2/V3 naming) rather than a native World Info one."""
    return "keys" in raw or "insertion_order" in raw or "secondary_keys" in raw


def book_entry_to_native(raw: Mapping[str, Any], index: int) -> dict[str, Any]:
    """A ``character_book`` entry in native naming, with SillyTavern's own defaults.

    Fields SillyTavern does not know (``name``, ``priority``, an extension of another tool)
    are kept under their camelCase name; ``use_regex`` is kept as ``useRegex``.
    """
    raw_extensions = raw.get("extensions")
    extensions: Mapping[str, Any] = raw_extensions if isinstance(raw_extensions, Mapping) else {}
    native: dict[str, Any] = {}
    known = {extension_name(key) for key in _BOOK_EXTENSIONS}
    for key, value in extensions.items():
        if key not in known:
            native[to_camel(key)] = value
    for key, value in raw.items():
        if key == "extensions":
            continue
        native[_BOOK_FIELDS.get(key, to_camel(key))] = value
    for key in _BOOK_EXTENSIONS:
        value = extensions.get(extension_name(key))
        native[key] = ST_TEMPLATE.get(key) if value is None else value
    # What convertCharacterBook does with the book's own fields.
    native["uid"] = raw.get("id", index)
    native["keysecondary"] = raw.get("secondary_keys") or []
    native["comment"] = raw.get("comment") or ""
    native["constant"] = raw.get("constant") or False
    native["selective"] = raw.get("selective") or False
    if extensions.get("position") is None:
        native["position"] = 0 if raw.get("position") == "before_char" else 1
    if extensions.get("case_sensitive") is None and raw.get("case_sensitive") is not None:
        native["caseSensitive"] = raw["case_sensitive"]  # the V2 spec's own field
        native[SPEC_CASE_SENSITIVE] = raw["case_sensitive"]
    if extensions.get("display_index") is None:
        native["displayIndex"] = index
    native["disable"] = raw.get("enabled") is not True
    native.pop("enabled", None)
    return native


def native_to_book_entry(record: Mapping[str, Any]) -> dict[str, Any]:
    """A native entry as a ``character_book`` entry, as convertWorldInfoToCharacterBook writes
    it (``use_regex`` is always true there: SillyTavern tells regex keys by their slashes)."""
    kept = record.get("extensions")
    extensions: dict[str, Any] = dict(kept) if isinstance(kept, Mapping) else {}
    own = {"uid", "key", "keysecondary", "comment", "content", "constant", "selective"}
    own |= {"order", "disable", "addMemo", "fabula", "extensions", SPEC_CASE_SENSITIVE}
    for key, value in record.items():
        if key not in own and key not in _BOOK_EXTENSIONS:
            extensions[to_snake(key)] = value
    for key in _BOOK_EXTENSIONS:
        extensions[extension_name(key)] = record.get(key, ST_TEMPLATE.get(key))
    if "fabula" in record:
        extensions["fabula"] = record["fabula"]
    top = _case_sensitive(record, extensions)
    return {
        "id": record.get("uid"),
        "keys": list(record.get("key") or []),
        "secondary_keys": list(record.get("keysecondary") or []),
        "comment": record.get("comment", ""),
        "content": record.get("content", ""),
        "constant": record.get("constant", False),
        "selective": record.get("selective", True),
        "insertion_order": record.get("order", DEFAULT_ORDER),
        "enabled": not record.get("disable", False),
        "position": "before_char" if record.get("position", 0) == 0 else "after_char",
        "use_regex": True,
        **top,
        "extensions": extensions,
    }


def _case_sensitive(record: Mapping[str, Any], extensions: dict[str, Any]) -> dict[str, Any]:
    """The V2 spec's top-level ``case_sensitive``; ``extensions.case_sensitive`` (what
    SillyTavern applies) goes back to null when the flag is still the one the card's top-level
    field gave (``SPEC_CASE_SENSITIVE``): the creator's change in Fabula wins, nothing else."""
    flag = record.get("caseSensitive")
    spec = record.get(SPEC_CASE_SENSITIVE)
    if isinstance(spec, bool) and flag == spec:
        extensions["case_sensitive"] = None
        return {"case_sensitive": spec}
    return {"case_sensitive": flag} if isinstance(flag, bool) else {}
