"""A world's files and sound: uploaded assets, character portraits, audio tracks, the BGM
playlist and conditional BGM (seed 004 "世界 Schema").

Uploads have their own naming and content-type rules, kept together here; Django registers these
models under the ``studio`` app because ``studio.models`` imports them.
"""

from __future__ import annotations

import uuid

from django.db import models

from studio.world_models import LOGIC_CHOICES, World, WorldItem, choices_of, unique_key

# The extension is what a web server goes by for the Content-Type, so it comes from the
# sniffed type, never from the uploader's file name (``x.html`` that starts with ``ID3``).
AUDIO_EXTENSIONS = {
    "audio/wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "audio/flac": ".flac",
    "audio/mp4": ".m4a",
}


def asset_upload_to(instance: Asset, filename: str) -> str:
    """``assets/<world pk>/<random uuid>.<ext>``: unguessable, nothing the uploader chose."""
    extension = AUDIO_EXTENSIONS.get(instance.content_type, ".bin")
    return f"assets/{instance.world_id}/{instance.uid}{extension}"


class Asset(models.Model):
    """An uploaded file a world refers to as ``@asset:<uid>``."""

    world = models.ForeignKey(World, models.CASCADE, related_name="assets")
    uid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    file = models.FileField(upload_to=asset_upload_to, max_length=300)
    original_name = models.CharField(max_length=255, blank=True, default="")
    content_type = models.CharField(max_length=50)
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "pk"]

    def __str__(self) -> str:
        return self.original_name or str(self.uid)

    @property
    def ref(self) -> str:
        return f"@asset:{self.uid}"


class CharacterPortrait(models.Model):
    """The portrait of one player character of the world's ``gameMaster`` block (by its id)."""

    world = models.ForeignKey(World, models.CASCADE, related_name="character_portraits")
    key = models.CharField(max_length=100, help_text="The character's id in gameMaster.")
    portrait = models.FileField(upload_to="portraits/", max_length=300)

    class Meta:
        ordering = ["world", "key"]
        constraints = [
            models.UniqueConstraint(fields=["world", "key"], name="characterportrait_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.key} of {self.world_id}"


class AudioTrack(WorldItem):
    definition_field = "audio_tracks"
    world = models.ForeignKey(World, models.CASCADE, related_name="audio_tracks")
    name = models.TextField(blank=True, default="")
    type = models.CharField(
        max_length=7, choices=choices_of(("bgm", "sfx", "ambient")), default="bgm"
    )
    url = models.TextField(blank=True, default="", help_text="@asset:<uid> or a direct URL.")
    loop = models.BooleanField(default=False)
    volume = models.FloatField(default=1.0)
    fade_in = models.FloatField(null=True, blank=True)
    fade_out = models.FloatField(null=True, blank=True)
    max_duration = models.FloatField(null=True, blank=True)

    class Meta(WorldItem.Meta):
        constraints = unique_key("audiotrack")


class BGMPlaylist(models.Model):
    """The world's ``bgmPlaylist``; no row means ``null``."""

    world = models.OneToOneField(World, models.CASCADE, related_name="bgm_playlist")
    tracks = models.JSONField(default=list, blank=True)
    play_mode = models.CharField(
        max_length=10, choices=choices_of(("loop", "shuffle", "sequential")), default="loop"
    )
    gap_seconds = models.FloatField(default=0)
    auto_play = models.BooleanField(default=True)
    wait_for_first_message = models.BooleanField(default=False)
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name = "BGM playlist"

    def __str__(self) -> str:
        return f"BGM playlist of {self.world_id}"


class ConditionalBGM(WorldItem):
    definition_field = "conditional_bgm"
    world = models.ForeignKey(World, models.CASCADE, related_name="conditional_bgm")
    name = models.TextField(blank=True, default="")
    target_track_id = models.TextField()
    trigger_type = models.CharField(
        max_length=15,
        choices=choices_of(("variable", "ai-keyword", "keyword", "turn-count", "session-start")),
        default="variable",
    )
    conditions = models.JSONField(default=list, blank=True)
    condition_logic = models.CharField(max_length=3, choices=LOGIC_CHOICES, default="all")
    keywords = models.JSONField(default=list, blank=True)
    match_whole_words = models.BooleanField(default=False)
    at_turn = models.IntegerField(null=True, blank=True)
    every_n_turns = models.PositiveIntegerField(null=True, blank=True)
    priority = models.IntegerField(default=0)
    fade_in_duration = models.FloatField(null=True, blank=True)
    fade_out_duration = models.FloatField(null=True, blank=True)
    stop_previous_bgm = models.BooleanField(default=True)
    fallback = models.TextField(default="default")

    class Meta(WorldItem.Meta):
        verbose_name = "conditional BGM"
        verbose_name_plural = "conditional BGM"
        constraints = unique_key("conditionalbgm")
