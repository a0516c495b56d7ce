"""What a world shows and plays (seed 004 "世界 Schema"): UI components, audio, BGM, folders.

None of it changes what the AI is sent; kept apart from content and rules so each part of the
format reads on its own (`engine.world` gathers them).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from engine.world_types import MAX_INT, Condition, KebabId, Logic, Schema


class RootComponent(Schema):
    id: str = ""
    name: str = ""
    entry_file: str = "index.tsx"
    files: dict[str, str] = Field(default_factory=dict)
    updated_at: str | None = None

    @model_validator(mode="after")
    def _entry_file_exists(self) -> RootComponent:
        if self.files and self.entry_file not in self.files:
            raise ValueError(f"entryFile '{self.entry_file}' is not among files")
        return self


class GameComponent(Schema):
    """A built-in UI component (status bar, gauge, text); its own fields are kept as extras."""

    id: str
    type: str
    name: str = ""
    variable_id: str | None = None


class AudioTrack(Schema):
    id: KebabId
    name: str = ""
    type: Literal["bgm", "sfx", "ambient"] = "bgm"
    url: str = ""
    loop: bool = False
    volume: float = Field(default=1.0, ge=0, le=1)
    fade_in: float | None = Field(default=None, ge=0)
    fade_out: float | None = Field(default=None, ge=0)
    max_duration: float | None = Field(default=None, gt=0)


class BGMPlaylist(Schema):
    tracks: list[str] = Field(default_factory=list)
    play_mode: Literal["loop", "shuffle", "sequential"] = "loop"
    gap_seconds: float = Field(default=0, ge=0, le=30)
    auto_play: bool = True
    wait_for_first_message: bool = False


class ConditionalBGM(Schema):
    id: str
    name: str = ""
    target_track_id: str
    trigger_type: Literal["variable", "ai-keyword", "keyword", "turn-count", "session-start"] = (
        "variable"
    )
    conditions: list[Condition] = Field(default_factory=list)
    condition_logic: Logic = "all"
    keywords: list[str] = Field(default_factory=list)
    match_whole_words: bool = False
    at_turn: int | None = Field(default=None, ge=-MAX_INT, le=MAX_INT)
    every_n_turns: int | None = Field(default=None, ge=1, le=MAX_INT)
    priority: int = Field(default=0, ge=-MAX_INT, le=MAX_INT)
    fade_in_duration: float | None = Field(default=None, ge=0)
    fade_out_duration: float | None = Field(default=None, ge=0)
    stop_previous_bgm: bool = Field(default=True, alias="stopPreviousBGM")
    fallback: str = "default"


class EntryFolder(Schema):
    id: str
    name: str = ""
    parent_id: str | None = None
