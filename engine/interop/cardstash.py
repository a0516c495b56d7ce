"""Reading back ``data.extensions.fabula``, what ``engine.interop.cardexport`` stashes in a card.

SillyTavern keeps a card's extensions as they are, so a world exported as a card comes back
whole: the Fabula fields of each entry a card field holds (keyed by the field: ``description``,
``alternate_greetings[0]``…), the greetings no field holds, the world's variables, rules,
settings and the rest, and the order of the entries. The card wins wherever it was edited in
SillyTavern: a field's text, the book's settings. A stash that does not validate is ignored
with a warning; the card alone is imported then.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from engine.interop.common import Coercer, IdAllocator, convert_text
from engine.world import Entry, WorldDefinition

FABULA = "fabula"
FABULA_NOTE = "stCard"
DEPTH_PROMPT = "extensions.depth_prompt.prompt"
_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def card_stash(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The card's ``extensions.fabula`` object, or {} when it has none."""
    extensions = fields.get("extensions")
    stash = extensions.get(FABULA) if isinstance(extensions, Mapping) else None
    return dict(stash) if isinstance(stash, Mapping) else {}


def normal_text(field: str, text: str) -> str:
    """A card field's text as the card importer stores it (engine.interop.cards)."""
    text = convert_text(text).strip()
    if field == "mes_example" and text and not text.lower().startswith("<start>"):
        text = "<START>\n" + text
    return text


def field_entry(
    entry: dict[str, Any],
    field: str,
    fields: Mapping[str, Any],
    ids: IdAllocator,
    coerce: Coercer,
) -> Entry:
    """The entry a card field gives: restored from the stash when the card has one for it,
    else marked with the field it came from (``stField``) for a later export."""
    saved = (card_stash(fields).get("entries") or {}).get(field)
    if isinstance(saved, Mapping):
        restored = _restored(entry, field, saved, ids)
        try:
            return Entry.model_validate(restored)
        except ValidationError:
            ids.taken.discard(restored["id"])
            coerce.warn(f"extensions.fabula.entries.{field}: invalid; the card's field is used")
    return Entry.model_validate({"id": ids.allocate(entry["name"]), **entry, "stField": field})


def _restored(
    entry: dict[str, Any], field: str, saved: Mapping[str, Any], ids: IdAllocator
) -> dict[str, Any]:
    data = {k: v for k, v in saved.items() if k not in ("id", "content")}
    text = saved.get("content")
    unchanged = isinstance(text, str) and normal_text(field, text) == entry["content"]
    data["content"] = text if unchanged else entry["content"]
    wanted = saved.get("id")
    if isinstance(wanted, str) and _KEBAB.match(wanted) and ids.claim(wanted):
        data["id"] = wanted
    else:
        data["id"] = ids.allocate(str(data.get("name") or entry["name"]))
    return data


def restore_card(
    world: dict[str, Any], fields: Mapping[str, Any], ids: IdAllocator, coerce: Coercer
) -> None:
    """Apply the stash's world-level parts to ``world`` (the card importer's dict), in place."""
    _strip_note(world.get("stCard"))
    stash = card_stash(fields)
    if not stash:
        return
    candidate = dict(world)
    rest = stash.get("world")
    if isinstance(rest, Mapping):
        for key, value in rest.items():
            if key == "settings" and isinstance(value, Mapping):
                candidate["settings"] = _settings(value, world.get("settings") or {}, fields)
            elif key not in candidate or key == "entryFolders":
                candidate[key] = value
    entries = list(candidate["entries"]) + _aside(stash.get("aside"), ids, coerce)
    candidate["entries"] = _ordered(entries, stash.get("order"))
    if FABULA_NOTE in stash and stash[FABULA_NOTE] is None:
        candidate.pop(FABULA_NOTE, None)
    try:
        WorldDefinition.model_validate(candidate)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"])
        coerce.warn(f"extensions.fabula: ignored ({where}: {problem['msg']})")
        return
    world.clear()
    world.update(candidate)


def _strip_note(note: Any) -> None:
    """The stash is not a fact about the card: keep it out of the ``stCard`` note."""
    if not isinstance(note, dict):
        return
    for key in ("extensions", "characterBook"):
        part = note.get(key)
        if isinstance(part, dict):
            part.pop(FABULA, None)
            if not part:
                del note[key]


def _settings(
    saved: Mapping[str, Any], from_book: Mapping[str, Any], fields: Mapping[str, Any]
) -> dict[str, Any]:
    """The stashed settings, but the book's scan depth and recursion where SillyTavern set them."""
    settings = {**saved, **{k: v for k, v in from_book.items() if k != "lorebookRecursionDepth"}}
    book = fields.get("character_book")
    recursive = book.get("recursive_scanning") if isinstance(book, Mapping) else None
    if isinstance(recursive, bool):
        kept = saved.get("lorebookRecursionDepth", 0)
        steps = kept if isinstance(kept, int) and kept > 0 else 3
        settings["lorebookRecursionDepth"] = steps if recursive else 0
    return settings


def _aside(saved: Any, ids: IdAllocator, coerce: Coercer) -> list[Entry]:
    out = []
    for index, data in enumerate(saved if isinstance(saved, list) else []):
        try:
            entry = Entry.model_validate(data)
        except ValidationError:
            coerce.warn(f"extensions.fabula.aside[{index}]: invalid; skipped")
            continue
        if not ids.claim(entry.id):
            entry.id = ids.allocate(entry.name or entry.id)
        out.append(entry)
    return out


def _ordered(entries: list[Any], order: Any) -> list[Any]:
    if not isinstance(order, list):
        return entries
    rank = {entry_id: n for n, entry_id in enumerate(order) if isinstance(entry_id, str)}

    def key(item: tuple[int, Any]) -> tuple[int, int]:
        index, entry = item
        entry_id = entry.id if isinstance(entry, Entry) else entry.get("id")
        return rank.get(entry_id, len(rank)), index

    return [entry for _, entry in sorted(enumerate(entries), key=key)]
