"""The whole world document (seed 004 "世界 Schema"): `WorldDefinition`, `Settings`, the export.

The document ties the parts together (`engine.world_entries`, `engine.world_rules`,
`engine.world_presentation`); its export lives beside it because `content_hash` hashes it.
Loading and validation, which build a definition from JSON, are in `engine.world_load`.
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from typing import Any, Literal

from pydantic import Field, PrivateAttr

from engine.gm.world import GameMaster
from engine.world_entries import Entry, Variable
from engine.world_presentation import (
    AudioTrack,
    BGMPlaylist,
    ConditionalBGM,
    EntryFolder,
    GameComponent,
    RootComponent,
)
from engine.world_rules import Reaction, Rule
from engine.world_types import SCHEMA_VERSION, Schema


class Settings(Schema):
    max_tokens: int = Field(default=12000, ge=1, le=1_000_000)
    max_context: int = Field(default=200000, ge=1, le=100_000_000)
    temperature: float = Field(default=1.0, ge=0, le=2)
    top_p: float = Field(default=1, ge=0, le=1)
    frequency_penalty: float = Field(default=0, ge=-2, le=2)
    presence_penalty: float = Field(default=0, ge=-2, le=2)
    player_name: str = "User"
    lorebook_scan_depth: int = Field(default=2, ge=0, le=10_000)
    lorebook_recursion_depth: int = Field(default=0, ge=0, le=100)
    top_k: int | None = Field(default=None, ge=0, le=1_000_000)
    min_p: float | None = Field(default=None, ge=0, le=1)
    structured_output: bool = False
    # The model the creator recommends; play uses it on the site's key only where the site
    # allows that model (FABULA_SITE_MODELS). Empty: no recommendation.
    recommended_model: str = Field(default="", max_length=200)


class WorldDefinition(Schema):
    id: str = ""
    version: str = SCHEMA_VERSION
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=10000)
    author: str = ""
    language: str | None = None

    entries: list[Entry] = Field(default_factory=list)
    variables: list[Variable] = Field(default_factory=list)
    rules: list[Rule] = Field(default_factory=list)
    reactions: list[Reaction] | None = Field(default_factory=list)

    root_component: RootComponent | None = None
    components: list[GameComponent] = Field(default_factory=list)
    audio_tracks: list[AudioTrack] = Field(default_factory=list)
    bgm_playlist: BGMPlaylist | None = Field(default=None, alias="bgmPlaylist")
    conditional_bgm: list[ConditionalBGM] = Field(default_factory=list, alias="conditionalBGM")
    custom_ui: list[dict[str, Any]] = Field(default_factory=list, alias="customUI")

    entry_folders: list[EntryFolder] = Field(default_factory=list)
    custom_tags: list[str] = Field(default_factory=list)
    custom_tag_colors: dict[str, str] = Field(default_factory=dict)
    editor_mode: Literal["simple", "advanced"] = "advanced"

    settings: Settings = Field(default_factory=Settings)
    game_master: GameMaster | None = None  # seed 001: absent in plain worlds (engine.gm.world)

    _warnings: list[str] = PrivateAttr(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """What loading noticed but forgave (unknown fields, a newer schema version)."""
        return self._warnings

    @cached_property
    def variables_by_id(self) -> dict[str, Variable]:
        return {v.id: v for v in self.variables}

    @cached_property
    def entries_by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}

    @cached_property
    def rules_by_id(self) -> dict[str, Rule]:
        return {r.id: r for r in self.rules}

    @cached_property
    def tracks_by_id(self) -> dict[str, AudioTrack]:
        return {t.id: t for t in self.audio_tracks}

    @cached_property
    def content_hash(self) -> str:
        """Hash of the canonical JSON: the key of every compiled-world cache."""
        canonical = json.dumps(export_world(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def default_state(self) -> dict[str, Any]:
        """Every variable id mapped to a fresh copy of its default value."""
        return {v.id: json.loads(json.dumps(v.default_value)) for v in self.variables}


def export_world(world: WorldDefinition) -> dict[str, Any]:
    """Dump a world as schema JSON (camelCase keys); optional settings left unset stay absent."""
    data = world.model_dump(mode="json", by_alias=True)
    settings = data["settings"]
    for key in ("topK", "minP"):
        if settings.get(key) is None:
            settings.pop(key, None)
    if not settings.get("recommendedModel"):
        settings.pop("recommendedModel", None)
    if data.get("language") is None:
        data.pop("language", None)
    if data.get("gameMaster") is None:
        data.pop("gameMaster", None)
    return data
