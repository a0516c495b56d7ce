"""A world → a SillyTavern character card, V2 or V3 (W10 interop; issue 16 §3).

The card's own fields take one entry each: an entry imported from a card goes back to the field
it came from (its ``stField``); other entries fill empty fields by role (a ``system`` preset is
the system prompt, the first ``character`` entry the description, the first greeting
``first_mes``, the first ``examples`` entry ``mes_example``, the first system ``post-history``
entry the post-history instructions). Everything else becomes the card's ``character_book``,
written as SillyTavern writes it, so its prompt holds all the world's text. What a card has no
place for (variables, rules, audio, settings, the Fabula fields of the card's own entries) rides
in ``data.extensions.fabula``, which SillyTavern keeps untouched and ``engine.interop.cards``
reads back: import → export → import gives the same world.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.interop.cardstash import DEPTH_PROMPT, FABULA, normal_text
from engine.interop.export import entry_folders, export_entry
from engine.interop.pngwrite import placeholder_png, write_card_png
from engine.interop.stentry import native_to_book_entry
from engine.world import Entry, WorldDefinition, export_world

Spec = Literal["v2", "v3"]
# What becomes of a lorebook entry gated by conditions, which SillyTavern cannot check (it would
# fire on its keys alone, or always, and its {{macros}} reach the prompt as text): "omit" keeps
# it out of the book (it rides in the stash, so Fabula gets it back), "disable" puts it in the
# book switched off, "keep" exports it as it is (the engine's default, for round trips).
Gated = Literal["keep", "omit", "disable"]
GATED_CHOICES: tuple[Gated, ...] = ("omit", "disable")
SPECS: dict[str, tuple[str, str]] = {
    "v2": ("chara_card_v2", "2.0"),
    "v3": ("chara_card_v3", "3.0"),
}
TEXT_FIELDS = ("system_prompt", "description", "personality", "scenario")
_ROLE_FIELDS = {
    "system": "system_prompt",
    "character": "description",
    "personality": "personality",
    "scenario": "scenario",
}
_SINGLE = (*TEXT_FIELDS, "mes_example", "post_history_instructions", DEPTH_PROMPT)
_ON_THE_CARD = ("entries", "name", "description", "author", "customTags", "stCard")
_INDEXED = re.compile(r"^(alternate_greetings|group_only_greetings)\[\d+\]$")


@dataclass
class CardPlan:
    """Which entry goes to which card field, which to the book, which rides in the stash."""

    fields: dict[str, Entry] = field(default_factory=dict)
    first: Entry | None = None
    alternates: list[Entry] = field(default_factory=list)
    group_only: list[Entry] = field(default_factory=list)
    book: list[Entry] = field(default_factory=list)
    aside: list[Entry] = field(default_factory=list)

    def take(self, name: str, entry: Entry) -> bool:
        """Put ``entry`` in the card field it came from, if that field is still free."""
        if name in _SINGLE and name not in self.fields:
            self.fields[name] = entry
        elif name == "first_mes" and self.first is None:
            self.first = entry
        elif name.startswith("alternate_greetings["):
            self.alternates.append(entry)
        elif name.startswith("group_only_greetings["):
            self.group_only.append(entry)
        else:
            return False
        return True

    def greeting(self, entry: Entry) -> None:
        if entry.enabled and self.first is None:
            self.first = entry
        elif entry.enabled:
            self.alternates.append(entry)
        elif "group-only" in entry.tags:
            self.group_only.append(entry)
        else:
            self.aside.append(entry)

    def placed(self) -> list[tuple[str, Entry]]:
        """(card field, entry) in the order the importer creates them."""
        out = [(name, self.fields[name]) for name in TEXT_FIELDS if name in self.fields]
        if self.first is not None:
            out.append(("first_mes", self.first))
        out += [(f"alternate_greetings[{i}]", e) for i, e in enumerate(self.alternates)]
        out += [(f"group_only_greetings[{i}]", e) for i, e in enumerate(self.group_only)]
        tail = ("mes_example", "post_history_instructions", DEPTH_PROMPT)
        return out + [(name, self.fields[name]) for name in tail if name in self.fields]


def plan_card(world: WorldDefinition) -> CardPlan:
    """Sort the world's entries into card fields, the book and the stash."""
    plan = CardPlan()
    rest: list[Entry] = []
    for entry in world.entries:
        origin = (entry.model_extra or {}).get("stField")
        if isinstance(origin, str) and _fits(entry, origin) and plan.take(origin, entry):
            continue
        rest.append(entry)
    for entry in rest:
        if entry.role == "greeting":
            plan.greeting(entry)
            continue
        name = _natural_field(entry)
        if name is not None and name not in plan.fields:
            plan.fields[name] = entry
        else:
            plan.book.append(entry)
    return plan


def _fits(entry: Entry, name: str) -> bool:
    if name in ("first_mes",) or name.startswith("alternate_greetings["):
        return entry.role == "greeting" and entry.enabled
    if name.startswith("group_only_greetings["):
        return entry.role == "greeting" and bool(_INDEXED.match(name))
    sections = {"mes_example": "examples", "post_history_instructions": "post-history"}
    sections[DEPTH_PROMPT] = "post-history"
    section = sections.get(name, "system-presets" if name in TEXT_FIELDS else "")
    return entry.section == section and _always_sent(entry) and entry.role != "greeting"


def _always_sent(entry: Entry) -> bool:
    return entry.enabled and not entry.conditions and entry.depth is None


def _natural_field(entry: Entry) -> str | None:
    if not _always_sent(entry) or entry.api_role != "system":
        return None
    if entry.section == "system-presets":
        return _ROLE_FIELDS.get(entry.role)
    if entry.section == "examples":
        return "mes_example"
    if entry.section == "post-history":
        return "post_history_instructions"
    return None


# --- the card ------------------------------------------------------------------------------


def gated_entries(world: WorldDefinition) -> list[Entry]:
    """The enabled entries the card's book would hold that only fire under conditions."""
    return [e for e in plan_card(world).book if e.enabled and e.conditions]


def _gate(plan: CardPlan, gated: Gated) -> None:
    if gated == "omit":
        plan.aside += [e for e in plan.book if e.enabled and e.conditions]
        plan.book = [e for e in plan.book if not (e.enabled and e.conditions)]
    elif gated == "disable":
        plan.book = [
            e.model_copy(update={"enabled": False}) if e.conditions else e for e in plan.book
        ]


def world_to_card(
    world: WorldDefinition, spec: Spec = "v2", gated: Gated = "keep"
) -> dict[str, Any]:
    """Export ``world`` as a character card JSON (``{"spec", "spec_version", "data"}``).

    Never raises for a valid world; an entry no card field can hold goes to the book. ``gated``:
    what becomes of the book's condition-gated entries (see ``Gated``).
    """
    plan = plan_card(world)
    _gate(plan, gated)
    note = _note(world)
    name, version = SPECS[spec]
    data = _card_data(world, plan, note)
    book = _book(world, plan, note)
    if book is not None:
        data["character_book"] = book
    if spec == "v3" or plan.group_only:
        data["group_only_greetings"] = [e.content for e in plan.group_only]
    for key, value in (note.get("fields") or {}).items():
        data.setdefault(key, value)
    same_spec = note.get("spec") == name and isinstance(note.get("specVersion"), str)
    card: dict[str, Any] = {
        "spec": name,
        "spec_version": note["specVersion"] if same_spec else version,
        "data": data,
    }
    if spec == "v2":  # the V1 fields beside ``data``, as SillyTavern writes them
        v1 = ("name", "description", "personality", "scenario", "first_mes", "mes_example")
        card.update({key: data[key] for key in v1})
    return card


def _note(world: WorldDefinition) -> dict[str, Any]:
    note = (world.model_extra or {}).get("stCard")
    return dict(note) if isinstance(note, dict) else {}


def _card_data(world: WorldDefinition, plan: CardPlan, note: dict[str, Any]) -> dict[str, Any]:
    def text(name: str) -> str:
        entry = plan.fields.get(name)
        return entry.content if entry is not None else ""

    extensions = dict(note.get("extensions") or {})
    _depth_prompt(extensions, plan.fields.get(DEPTH_PROMPT))
    extensions[FABULA] = _stash(world, plan)
    return {
        "name": world.name,
        "description": text("description"),
        "personality": text("personality"),
        "scenario": text("scenario"),
        "first_mes": plan.first.content if plan.first is not None else "",
        "mes_example": text("mes_example"),
        "creator_notes": world.description,
        "system_prompt": text("system_prompt"),
        "post_history_instructions": text("post_history_instructions"),
        "alternate_greetings": [e.content for e in plan.alternates],
        "tags": list(world.custom_tags),
        "creator": world.author,
        "character_version": str(note.get("characterVersion") or ""),
        "extensions": extensions,
    }


def _depth_prompt(extensions: dict[str, Any], entry: Entry | None) -> None:
    """SillyTavern's character note: the entry's text, else an emptied note (never a stale one)."""
    old = extensions.get("depth_prompt")
    note = dict(old) if isinstance(old, dict) else {}
    if entry is not None:
        note.update(prompt=entry.content, role=entry.api_role)
        note.setdefault("depth", 4)
    elif not note.get("prompt"):
        return
    else:
        note["prompt"] = ""
    extensions["depth_prompt"] = note


def _book(world: WorldDefinition, plan: CardPlan, note: dict[str, Any]) -> dict[str, Any] | None:
    about = dict(note.get("characterBook") or {})
    if not plan.book and not about:
        return None
    book: dict[str, Any] = {"name": about.pop("name", world.name)}
    settings = world.settings
    if "scan_depth" in about or settings.lorebook_scan_depth != 2:
        book["scan_depth"] = settings.lorebook_scan_depth
    if "recursive_scanning" in about or settings.lorebook_recursion_depth:
        book["recursive_scanning"] = settings.lorebook_recursion_depth > 0
    for key, value in about.items():
        book.setdefault(key, value)
    # SillyTavern's validateV2 refuses a book without its own (even empty) ``extensions``.
    extensions = book.get("extensions")
    book["extensions"] = dict(extensions) if isinstance(extensions, dict) else {}
    book["entries"] = [
        native_to_book_entry(export_entry(entry, uid)) for uid, entry in enumerate(plan.book)
    ]
    folders = entry_folders(world, plan.book)
    if folders:
        book[FABULA] = {"entryFolders": folders}
    return book


# --- the stash -------------------------------------------------------------------------------


def _stash(world: WorldDefinition, plan: CardPlan) -> dict[str, Any]:
    stash: dict[str, Any] = {"version": 1}
    if "stCard" not in (world.model_extra or {}):
        stash["stCard"] = None  # not a card's world: the import adds no card note
    rest = _world_rest(world)
    if rest:
        stash["world"] = rest
    placed = plan.placed()
    stash["entries"] = {name: _entry_stash(name, entry) for name, entry in placed}
    if plan.aside:
        stash["aside"] = [e.model_dump(mode="json", by_alias=True) for e in plan.aside]
    natural = [e.id for _, e in placed] + [e.id for e in plan.book] + [e.id for e in plan.aside]
    order = [e.id for e in world.entries]
    if order != natural:
        stash["order"] = order
    return stash


def _entry_stash(name: str, entry: Entry) -> dict[str, Any]:
    """The entry's Fabula fields; its text only when the card's copy reads differently."""
    data = entry.model_dump(mode="json", by_alias=True)
    content = data.pop("content")
    if normal_text(name, content) != content:
        data["content"] = content
    return data


def _world_rest(world: WorldDefinition) -> dict[str, Any]:
    """The world's own fields that differ from a new world's, minus those the card carries."""
    data = export_world(world)
    blank = export_world(WorldDefinition(name=world.name))
    rest = {k: v for k, v in data.items() if k not in _ON_THE_CARD and v != blank.get(k)}
    if "settings" in rest:
        new = blank["settings"]
        rest["settings"] = {k: v for k, v in rest["settings"].items() if v != new.get(k)}
    return rest


def world_to_card_png(
    world: WorldDefinition,
    spec: Spec = "v2",
    portrait: bytes | None = None,
    gated: Gated = "keep",
) -> bytes:
    """The card as a PNG: ``chara`` (V2), plus ``ccv3`` (V3) for a V3 export, like SillyTavern.

    ``portrait`` must be a PNG (CardError otherwise); without one a placeholder is drawn.
    """
    image = portrait if portrait is not None else placeholder_png(world.name)
    cards = [("chara", world_to_card(world, "v2", gated))]
    if spec == "v3":
        cards.append(("ccv3", world_to_card(world, "v3", gated)))
    return write_card_png(image, cards)
