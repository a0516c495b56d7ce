"""A world's game-master nouns in more languages than its own (issue 33 §3: "No English fragment
in a Spanish or Chinese session: world nouns come from the world in its language").

Each entity a player can read carries an optional ``translations`` map, language code ("es",
"zh") to the words below; every word left out falls back to the entity's own, in the world's
language. ``aliases`` add to the entity's own (the words a player of that language types).
Secrets, GM notes and motivations are never translated: they only reach the model.
``engine.gm.localize`` applies them; the models live here so that ``engine.gm.world`` and
``engine.gm.progress`` can import them without a cycle.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from engine.gm.vocab import GMSchema, TrustLevel


class NounWords(GMSchema):
    """A point, hidden point, item or notice board in one more language."""

    name: str | None = Field(default=None, min_length=1)
    aliases: list[str] = Field(default_factory=list)
    description: str | None = None


class PlaceWords(NounWords):
    """A location in one more language (its points carry their own)."""

    ambient: list[str] | None = None


class NpcWords(NounWords):
    """An NPC in one more language: what the engine says of it and the lines its talk can use
    (``description`` is its manner; the secret and the motivation stay the model's)."""

    trade: str | None = None
    public_description: str | None = None
    situation: str | None = None
    concerns: list[str] | None = None
    disclosures: dict[TrustLevel, str] = Field(default_factory=dict)  # merged level by level


class SheetWords(GMSchema):
    """A player character's public sheet in one more language."""

    appearance: str | None = None
    reputation: str | None = None


class FullSheetWords(GMSchema):
    """A player character's full sheet in one more language (its player reads it on his sheet);
    its secrets stay in the world's language, where the secret checks read them."""

    character_class: str | None = Field(default=None, alias="class")
    traits: list[str] | None = None
    background: str | None = None


class ClueWords(GMSchema):
    name: str | None = Field(default=None, min_length=1)
    text: str | None = None


class QuestWords(GMSchema):
    title: str | None = Field(default=None, min_length=1)
    summary: str | None = None
    description: str | None = None


class NoticeWords(GMSchema):
    title: str | None = Field(default=None, min_length=1)
    summary: str | None = None


class TextWords(GMSchema):
    """A hook's or a rumour's text in one more language."""

    text: str | None = Field(default=None, min_length=1)


def _empty(value: Any) -> bool:
    return not value


# ``translations`` of each kind: absent from an export while empty (worlds without any keep
# their JSON and their content hash).
def translations_field() -> Any:
    return Field(default_factory=dict, exclude_if=_empty)
