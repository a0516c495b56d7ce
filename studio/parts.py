"""How each list of a world maps to its model: schema attribute → column, extras → ``extra``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import world as ew
from studio.models import (
    AudioTrack,
    Component,
    ConditionalBGM,
    Entry,
    EntryFolder,
    Reaction,
    Rule,
    Variable,
    WorldItem,
)


@dataclass(frozen=True)
class Part:
    """One list of the world (``entries``, ``rules``…) and the model that stores it."""

    model: type[WorldItem]
    schema: type[ew.Schema]
    noun: str
    related: str  # the reverse accessor on World
    unique_keys: bool = True
    renames: dict[str, str] = field(default_factory=dict)

    @property
    def field(self) -> str:
        return self.model.definition_field

    @property
    def alias(self) -> str:
        return ew.WorldDefinition.model_fields[self.field].alias or self.field

    def columns(self) -> dict[str, str]:
        """JSON key → model column, for every field the schema declares."""
        out = {}
        for name, info in self.schema.model_fields.items():
            column = "key" if name == "id" else self.renames.get(name, name)
            out[info.alias or name] = column
        return out


PARTS: tuple[Part, ...] = (
    Part(Entry, ew.Entry, "entry", "entries", renames={"position": "section_position"}),
    Part(Variable, ew.Variable, "variable", "variables"),
    Part(Rule, ew.Rule, "rule", "rules"),
    Part(Reaction, ew.Reaction, "reaction", "reactions"),
    Part(AudioTrack, ew.AudioTrack, "audio track", "audio_tracks"),
    Part(ConditionalBGM, ew.ConditionalBGM, "conditional BGM", "conditional_bgm"),
    Part(EntryFolder, ew.EntryFolder, "folder", "folders", unique_keys=False),
    Part(Component, ew.GameComponent, "component", "components", unique_keys=False),
)
PART_BY_MODEL: dict[type[WorldItem], Part] = {p.model: p for p in PARTS}


def part_for(model: type[WorldItem]) -> Part:
    return PART_BY_MODEL[model]


def row_values(part: Part, item: ew.Schema) -> dict[str, Any]:
    """Model column values for a validated schema item; unknown keys go to ``extra``."""
    data = item.model_dump(mode="json", by_alias=True)
    values = {column: data.pop(key) for key, column in part.columns().items()}
    values["extra"] = data
    return values


def item_to_dict(item: WorldItem) -> dict[str, Any]:
    """The item as world JSON (camelCase), extras included."""
    part = part_for(type(item))
    data = {key: getattr(item, column) for key, column in part.columns().items()}
    data.update(item.extra)
    return data
