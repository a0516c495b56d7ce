"""Worlds stored as rows (seed 004 "世界 Schema"), so an edit touches one small row.

Every sub-item keeps its schema id in ``key`` (the row's own ``id`` is Django's primary key), its
list order in ``position``, and any field the schema does not know in ``extra``, so
``export(import(x)) == x``. The columns are named after the engine's snake_case attributes;
``studio.worlds`` converts rows to and from ``engine.world.WorldDefinition``, which is the only
validator. ``Entry.section_position`` is the schema's ``position`` (order inside a section).
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from engine.world import API_ROLES, ENTRY_ROLES, SCHEMA_VERSION, SECTIONS, Settings


def _choices(values: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(v, v) for v in values]


def new_uid() -> str:
    return str(uuid.uuid4())


def default_settings() -> dict[str, Any]:
    data = Settings().model_dump(mode="json", by_alias=True)
    return {k: v for k, v in data.items() if v is not None}


LOGIC_CHOICES = _choices(("all", "any"))


class World(models.Model):
    """A creator's draft; publishing freezes it into a WorldVersion."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="worlds")
    # The schema id. A string, not a UUIDField: imported worlds keep whatever id they carry.
    uid = models.CharField(max_length=100, default=new_uid, db_index=True)
    schema_version = models.CharField(max_length=20, default=SCHEMA_VERSION)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    author = models.TextField(blank=True, default="")
    # None (absent from the JSON) and "" are different values in the schema.
    language = models.CharField(max_length=35, null=True, blank=True, default=None)  # noqa: DJ001
    editor_mode = models.CharField(
        max_length=10, choices=_choices(("simple", "advanced")), default="advanced"
    )
    settings = models.JSONField(default=default_settings, blank=True)
    custom_tags = models.JSONField(default=list, blank=True)
    custom_tag_colors = models.JSONField(default=dict, blank=True)
    custom_ui = models.JSONField(default=list, blank=True)
    # rootComponent: null unless has_root_component; its files are RootComponentFile rows.
    has_root_component = models.BooleanField(default=False)
    root_component_key = models.TextField(blank=True, default="")
    root_component_name = models.TextField(blank=True, default="")
    root_component_entry_file = models.TextField(blank=True, default="index.tsx")
    root_component_updated_at = models.TextField(null=True, blank=True, default=None)  # noqa: DJ001
    root_component_extra = models.JSONField(default=dict, blank=True)
    # Unknown top-level fields; also ``{"reactions": null}`` when the source had a null list.
    extra = models.JSONField(default=dict, blank=True)

    published = models.BooleanField(default=False, help_text="Listed in the gallery.")
    published_version = models.ForeignKey(
        "WorldVersion", models.SET_NULL, null=True, blank=True, related_name="+"
    )
    forked_from = models.ForeignKey(
        "WorldVersion", models.SET_NULL, null=True, blank=True, related_name="forks"
    )
    # The square PNG that studio.portraits wrote (its thumbnails sit beside it); "" = none.
    portrait = models.FileField(upload_to="portraits/", max_length=300, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated", "pk"]

    def __str__(self) -> str:
        return self.name


class WorldItem(models.Model):
    """Shared columns of every list the world holds (entries, variables, rules, …)."""

    world = models.ForeignKey(World, models.CASCADE)
    key = models.TextField(help_text="The id in the world JSON.")
    position = models.PositiveIntegerField(default=0, help_text="Order in the world's list.")
    extra = models.JSONField(default=dict, blank=True)

    objects = models.Manager()
    # Set by subclasses: the WorldDefinition list this model stores.
    definition_field: ClassVar[str] = ""

    class Meta:
        abstract = True
        ordering = ["position", "pk"]

    def __str__(self) -> str:
        return self.key


def _unique_key(name: str) -> list[models.BaseConstraint]:
    return [models.UniqueConstraint(fields=["world", "key"], name=f"{name}_unique_key")]


class EntryFolder(WorldItem):
    definition_field = "entry_folders"
    world = models.ForeignKey(World, models.CASCADE, related_name="folders")
    name = models.TextField(blank=True, default="")
    parent_id = models.TextField(null=True, blank=True, default=None)  # noqa: DJ001

    class Meta(WorldItem.Meta):
        pass


class Entry(WorldItem):
    definition_field = "entries"
    world = models.ForeignKey(World, models.CASCADE, related_name="entries")
    name = models.TextField(blank=True, default="")
    content = models.TextField(blank=True, default="")
    role = models.CharField(max_length=20, choices=_choices(ENTRY_ROLES), default="custom")
    api_role = models.CharField(max_length=10, choices=_choices(API_ROLES), default="system")
    section = models.CharField(max_length=20, choices=_choices(SECTIONS), default="system-presets")
    section_position = models.IntegerField(
        default=0, help_text="The schema's `position`: order inside the section."
    )
    enabled = models.BooleanField(default=True)
    keywords = models.JSONField(default=list, blank=True)
    conditions = models.JSONField(default=list, blank=True)
    condition_logic = models.CharField(max_length=3, choices=LOGIC_CHOICES, default="all")
    depth = models.PositiveIntegerField(null=True, blank=True)
    match_whole_words = models.BooleanField(default=False)
    case_sensitive = models.BooleanField(default=False)
    secondary_keywords = models.JSONField(default=list, blank=True)
    secondary_keyword_logic = models.CharField(
        max_length=7,
        choices=_choices(("AND_ANY", "AND_ALL", "NOT_ANY", "NOT_ALL")),
        default="AND_ANY",
    )
    prevent_recursion = models.BooleanField(default=False)
    exclude_recursion = models.BooleanField(default=False)
    tags = models.JSONField(default=list, blank=True)
    folder_id = models.TextField(null=True, blank=True, default=None)  # noqa: DJ001

    class Meta(WorldItem.Meta):
        verbose_name_plural = "entries"
        constraints = _unique_key("entry")


class Variable(WorldItem):
    definition_field = "variables"
    world = models.ForeignKey(World, models.CASCADE, related_name="variables")
    name = models.TextField(blank=True, default="")
    type = models.CharField(
        max_length=7, choices=_choices(("number", "string", "boolean", "json")), default="number"
    )
    default_value = models.JSONField(null=True, blank=True)
    min = models.FloatField(null=True, blank=True)
    max = models.FloatField(null=True, blank=True)
    description = models.TextField(blank=True, default="")
    behavior_rules = models.TextField(blank=True, default="")

    class Meta(WorldItem.Meta):
        constraints = _unique_key("variable")


class Rule(WorldItem):
    definition_field = "rules"
    world = models.ForeignKey(World, models.CASCADE, related_name="rules")
    name = models.TextField(blank=True, default="")
    description = models.TextField(blank=True, default="")
    trigger = models.JSONField(default=dict)
    conditions = models.JSONField(default=list, blank=True)
    condition_logic = models.CharField(max_length=3, choices=LOGIC_CHOICES, default="all")
    actions = models.JSONField(default=list, blank=True)
    priority = models.IntegerField(default=0)
    enabled = models.BooleanField(default=True)
    cooldown_turns = models.PositiveIntegerField(null=True, blank=True)
    max_fire_count = models.PositiveIntegerField(null=True, blank=True)

    class Meta(WorldItem.Meta):
        constraints = _unique_key("rule")


class Reaction(WorldItem):
    definition_field = "reactions"
    world = models.ForeignKey(World, models.CASCADE, related_name="reactions")
    name = models.TextField(blank=True, default="")
    when = models.JSONField(default=dict)
    conditions = models.JSONField(default=list, blank=True)
    condition_logic = models.CharField(max_length=3, choices=LOGIC_CHOICES, default="all")
    then = models.JSONField(default=list, blank=True)
    enabled = models.BooleanField(default=True)

    class Meta(WorldItem.Meta):
        constraints = _unique_key("reaction")


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
        max_length=7, choices=_choices(("bgm", "sfx", "ambient")), default="bgm"
    )
    url = models.TextField(blank=True, default="", help_text="@asset:<uid> or a direct URL.")
    loop = models.BooleanField(default=False)
    volume = models.FloatField(default=1.0)
    fade_in = models.FloatField(null=True, blank=True)
    fade_out = models.FloatField(null=True, blank=True)
    max_duration = models.FloatField(null=True, blank=True)

    class Meta(WorldItem.Meta):
        constraints = _unique_key("audiotrack")


class BGMPlaylist(models.Model):
    """The world's ``bgmPlaylist``; no row means ``null``."""

    world = models.OneToOneField(World, models.CASCADE, related_name="bgm_playlist")
    tracks = models.JSONField(default=list, blank=True)
    play_mode = models.CharField(
        max_length=10, choices=_choices(("loop", "shuffle", "sequential")), default="loop"
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
        choices=_choices(("variable", "ai-keyword", "keyword", "turn-count", "session-start")),
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
        constraints = _unique_key("conditionalbgm")


class Component(WorldItem):
    """A built-in UI component (status bar, gauge…); its own settings live in ``extra``."""

    definition_field = "components"
    world = models.ForeignKey(World, models.CASCADE, related_name="components")
    type = models.TextField()
    name = models.TextField(blank=True, default="")
    variable_id = models.TextField(null=True, blank=True, default=None)  # noqa: DJ001

    class Meta(WorldItem.Meta):
        pass


class RootComponentFile(models.Model):
    """One file of the custom UI's virtual file system (``rootComponent.files``)."""

    world = models.ForeignKey(World, models.CASCADE, related_name="root_files")
    path = models.TextField()
    source = models.TextField(blank=True, default="")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["world", "path"], name="rootfile_unique_path")
        ]

    def __str__(self) -> str:
        return self.path


class ImmutableError(RuntimeError):
    """A published version was about to change."""


class WorldVersionQuerySet(models.QuerySet["WorldVersion"]):
    def update(self, **kwargs: Any) -> int:
        raise ImmutableError("published versions are immutable")


class WorldVersion(models.Model):
    """A published, frozen world: the exported JSON and its hash. Sessions point here."""

    world = models.ForeignKey(World, models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    definition = models.JSONField()
    content_hash = models.CharField(max_length=64, db_index=True)
    changelog = models.CharField(max_length=500, blank=True, default="")
    # Copied out of ``definition`` so the gallery can search and list without parsing JSON.
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    language = models.CharField(max_length=35, blank=True, default="")
    tags = models.TextField(blank=True, default="", help_text="|tag|tag| for lookups.")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = WorldVersionQuerySet.as_manager()

    class Meta:
        ordering = ["world", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["world", "number"], name="version_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise ImmutableError("published versions are immutable")
        super().save(*args, **kwargs)

    @property
    def tag_list(self) -> list[str]:
        return [t for t in self.tags.split("|") if t]


class ApiToken(models.Model):
    """A personal API token; only its SHA-256 is stored, the secret is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(
        max_length=12, help_text="The first characters, to tell tokens apart."
    )
    digest = models.CharField(max_length=64, unique=True)
    scope = models.CharField(
        max_length=5,
        choices=[("read", "read"), ("write", "write")],
        default="read",
        help_text="read: GET only; write: every method.",
    )
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked is None and not self.is_expired

    @property
    def is_expired(self) -> bool:
        return self.expires <= timezone.now()


class LoginFailure(models.Model):
    """One failed login; a few recent ones lock the account name, or the address, for a while."""

    username = models.CharField(max_length=150, db_index=True)
    address = models.CharField(max_length=45, blank=True, db_index=True)
    created = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.username} from {self.address or '?'} at {self.created}"


# Evaluations live in their own package (studio.evaluations); importing them here registers them.
from studio.evaluations.models import (  # noqa: E402, F401
    Evaluation,
    EvaluationAction,
    EvaluationGame,
)

# World tests too (studio.worldtests).
from studio.worldtests.models import WorldTest, WorldTestRun  # noqa: E402, F401
