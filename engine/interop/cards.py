"""Character cards V1, V2 and V3 → a Fabula world (W10 interop; seed 004 "条目与分区").

A card becomes always-sent entries in the order SillyTavern builds its prompt: system prompt,
description, personality, scenario; the greetings follow (the play layer picks one), the example
dialogue goes to ``examples``, the post-history instructions to ``post-history`` and the
embedded ``character_book`` becomes the world's lorebook. What has no Fabula field (the card
version, its extensions) is kept in the world's ``stCard`` note, and each entry made from a card
field remembers it (``stField``) so that an export puts it back there; a card Fabula exported
brings the rest of its world back from ``data.extensions.fabula`` (``engine.interop.cardstash``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.interop.cardstash import field_entry, restore_card
from engine.interop.common import CardError, Coercer, IdAllocator, convert_text, json_type
from engine.interop.worldinfo import book_settings, read_lorebook
from engine.world import MAX_ENTRY_CONTENT, Entry, WorldDefinition

CARD_SPECS = ("chara_card_v2", "chara_card_v3")
# Old TavernAI/Pygmalion names of the V1 fields.
_V1_ALIASES = {
    "char_name": "name",
    "char_persona": "personality",
    "world_scenario": "scenario",
    "char_greeting": "first_mes",
    "example_dialogue": "mes_example",
    "creatorcomment": "creator_notes",
}
CARD_TEXT_FIELDS = ("description", "personality", "scenario", "first_mes", "mes_example")
_MAPPED = frozenset(
    {
        "name",
        *CARD_TEXT_FIELDS,
        "system_prompt",
        "post_history_instructions",
        "alternate_greetings",
        "group_only_greetings",
        "creator_notes",
        "creator",
        "tags",
        "character_version",
        "extensions",
        "character_book",
    }
)
# V1 fields that only describe SillyTavern's own UI state.
_UI_STATE = frozenset({"avatar", "chat", "create_date", "fav", "talkativeness", "spec_version"})
_MAX_NAME = 200
_MAX_DESCRIPTION = 10000


def card_to_world(card: Mapping[str, Any]) -> WorldDefinition:
    """Build a world from a character card (V1 flat, V2 or V3); ``world.warnings`` lists fixes.

    Raises CardError when the JSON is not a card at all (no ``data`` object for a V2/V3 spec,
    none of the character fields).
    """
    if not isinstance(card, Mapping):
        raise CardError(f"card JSON is invalid: expected an object, got {json_type(card)}")
    warnings: list[str] = []
    coerce = Coercer(warnings)
    spec, fields = _card_fields(card, coerce)
    name = _card_name(fields, coerce)
    ids = IdAllocator()
    entries = _character_entries(fields, coerce, ids)
    world: dict[str, Any] = {"name": name, "entries": entries}
    book = fields.get("character_book")
    if isinstance(book, Mapping):
        book_warnings: list[str] = []
        lore, folders = read_lorebook(book, book_warnings, ids)
        warnings.extend(f"character_book.{line}" for line in book_warnings)
        world["entries"] = entries + lore
        world["entryFolders"] = folders
        world["settings"] = book_settings(book, coerce)
    elif book is not None:
        coerce.warn(f"character_book: expected an object, got {json_type(book)}; ignored")
    world.update(_card_metadata(fields, coerce))
    note = _card_note(spec, card, fields, coerce)
    if note:
        world["stCard"] = note
    restore_card(world, fields, ids, coerce)  # what engine.interop.cardexport stashed
    result = WorldDefinition.model_validate(world)
    result._warnings = warnings
    return result


def _card_fields(card: Mapping[str, Any], coerce: Coercer) -> tuple[str, dict[str, Any]]:
    """The card's version label and its fields, V2/V3 ``data`` over the V1 top level."""
    top = {_V1_ALIASES.get(k, k): v for k, v in card.items()}
    spec = card.get("spec")
    data = card.get("data")
    if spec in CARD_SPECS:
        if not isinstance(data, Mapping):
            raise CardError(f"card JSON is invalid: a '{spec}' card needs a 'data' object")
        label = str(spec)
    elif isinstance(data, Mapping) and _looks_like_character(data):
        label = "chara_card_v2"
        coerce.warn("spec: missing; read as a V2 card")
    else:
        if spec is not None:
            coerce.warn(f"spec: unknown card spec {spec!r}; read as a V1 card")
        data, label = {}, "chara_card_v1"
    fields = {k: v for k, v in top.items() if k in _MAPPED and k != "extensions"}
    fields.update({k: v for k, v in data.items() if v is not None})
    fields["_unmapped"] = {
        k: v
        for k, v in (data if label != "chara_card_v1" else top).items()
        if k not in _MAPPED and k not in _UI_STATE and k not in ("spec", "data")
    }
    if not _looks_like_character(fields):
        raise CardError(
            "card JSON is invalid: none of the character fields "
            "(name, description, personality, scenario, first_mes, mes_example)"
        )
    return label, fields


def _looks_like_character(fields: Mapping[str, Any]) -> bool:
    return any(fields.get(k) for k in ("name", *CARD_TEXT_FIELDS))


def _card_name(fields: dict[str, Any], coerce: Coercer) -> str:
    name = " ".join(coerce.text(fields.get("name"), "name").split())
    if not name:
        coerce.warn("name: the card has no name; using 'Unnamed character'")
        return "Unnamed character"
    if len(name) > _MAX_NAME:
        coerce.warn(f"name: longer than {_MAX_NAME} characters; shortened")
    return name[:_MAX_NAME]


def _character_entries(fields: dict[str, Any], coerce: Coercer, ids: IdAllocator) -> list[Entry]:
    out: list[Entry] = []

    def add(name: str, content: str, section: str, role: str, **extra: Any) -> None:
        field = extra.pop("field")
        _check_length(field, content)
        same_section = sum(1 for e in out if e.section == section)
        entry = {"name": name, "content": content, "section": section, "role": role, **extra}
        entry.setdefault("position", same_section)
        out.append(field_entry(entry, field, fields, ids, coerce))  # engine.interop.cardstash

    def text(field: str) -> str:
        return convert_text(coerce.text(fields.get(field), field)).strip()

    for field, name, role in (
        ("system_prompt", "System prompt", "system"),
        ("description", "Description", "character"),
        ("personality", "Personality", "personality"),
        ("scenario", "Scenario", "scenario"),
    ):
        content = text(field)
        if content:
            add(name, content, "system-presets", role, field=field)
    greetings = [("Greeting", text("first_mes"), "first_mes")]
    alternates = coerce.texts(fields.get("alternate_greetings"), "alternate_greetings")
    greetings += [
        (f"Alternate greeting {i}", g, f"alternate_greetings[{i - 1}]")
        for i, g in enumerate(alternates, 1)
    ]
    for name, greeting, where in greetings:
        if greeting:
            add(name, greeting, "system-presets", "greeting", apiRole="assistant", field=where)
    group_only = coerce.texts(fields.get("group_only_greetings"), "group_only_greetings")
    for i, greeting in enumerate(group_only, 1):
        add(
            f"Group greeting {i}",
            greeting,
            "system-presets",
            "greeting",
            apiRole="assistant",
            enabled=False,
            tags=["group-only"],
            field=f"group_only_greetings[{i - 1}]",
        )
    examples = text("mes_example")
    if examples:
        if not examples.lstrip().lower().startswith("<start>"):
            examples = "<START>\n" + examples
        add("Example dialogue", examples, "examples", "example", field="mes_example")
    post_history = text("post_history_instructions")
    if post_history:
        add(
            "Post-history instructions",
            post_history,
            "post-history",
            "system",
            field="post_history_instructions",
        )
    _depth_prompt(fields, coerce, add)
    return out


def _depth_prompt(fields: dict[str, Any], coerce: Coercer, add: Callable[..., None]) -> None:
    """SillyTavern's character note (``extensions.depth_prompt``), sent after the chat."""
    extensions = fields.get("extensions")
    note = extensions.get("depth_prompt") if isinstance(extensions, Mapping) else None
    if not isinstance(note, Mapping):
        return
    prompt = convert_text(coerce.text(note.get("prompt"), "extensions.depth_prompt.prompt"))
    if not prompt.strip():
        return
    depth = coerce.integer(note.get("depth"), "extensions.depth_prompt.depth")
    role = note.get("role") if note.get("role") in ("system", "user", "assistant") else "system"
    coerce.warn(
        f"extensions.depth_prompt: SillyTavern inserts the character note at depth "
        f"{depth if depth is not None else 4}; Fabula sends it after the chat (post-history)"
    )
    add(
        "Character note",
        prompt.strip(),
        "post-history",
        "system",
        apiRole=role,
        field="extensions.depth_prompt.prompt",
    )


def _check_length(field: str, content: str) -> None:
    """Refuse a card text over an entry's limit rather than cut it (nothing is lost silently)."""
    if len(content) > MAX_ENTRY_CONTENT:
        problem = f"{field}: is longer than the {MAX_ENTRY_CONTENT:,} characters an entry holds"
        raise CardError(f"card JSON is invalid: {problem}", [problem])


def _card_metadata(fields: dict[str, Any], coerce: Coercer) -> dict[str, Any]:
    notes = convert_text(coerce.text(fields.get("creator_notes"), "creator_notes")).strip()
    if len(notes) > _MAX_DESCRIPTION:
        coerce.warn(f"creator_notes: longer than {_MAX_DESCRIPTION} characters; shortened")
    return {
        "description": notes[:_MAX_DESCRIPTION],
        "author": coerce.text(fields.get("creator"), "creator").strip(),
        "customTags": coerce.strings(fields.get("tags"), "tags"),
    }


def _card_note(
    spec: str, card: Mapping[str, Any], fields: dict[str, Any], coerce: Coercer
) -> dict[str, Any]:
    """Card facts with no Fabula field, kept so that nothing of the card is lost."""
    note: dict[str, Any] = {"spec": spec}
    version = coerce.text(card.get("spec_version"), "spec_version")
    if version:
        note["specVersion"] = version
    character_version = coerce.text(fields.get("character_version"), "character_version")
    if character_version:
        note["characterVersion"] = character_version
    extensions = fields.get("extensions")
    if isinstance(extensions, Mapping) and extensions:
        note["extensions"] = dict(extensions)
        linked = extensions.get("world")
        if isinstance(linked, str) and linked and "character_book" not in fields:
            coerce.warn(f"extensions.world: the card uses the World Info '{linked}'; import it too")
    book = fields.get("character_book")
    if isinstance(book, Mapping):
        about_book = {k: v for k, v in book.items() if k != "entries" and v not in (None, "", {})}
        if about_book:
            note["characterBook"] = about_book
    if fields["_unmapped"]:
        note["fields"] = fields["_unmapped"]
    return note
