"""The world row and the base of every row of its lists (``WorldItem``), with the small helpers
all studio models share; ``studio.models`` explains the layout and imports every model.

Apart from the other model modules so they can all import ``World`` without importing each other.
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

from django.conf import settings
from django.db import models

from engine.world import SCHEMA_VERSION, Settings


def choices_of(values: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(v, v) for v in values]


def new_uid() -> str:
    return str(uuid.uuid4())


def default_settings() -> dict[str, Any]:
    data = Settings().model_dump(mode="json", by_alias=True)
    return {k: v for k, v in data.items() if v is not None}


LOGIC_CHOICES = choices_of(("all", "any"))


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
        max_length=10, choices=choices_of(("simple", "advanced")), default="advanced"
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


def unique_key(name: str) -> list[models.BaseConstraint]:
    return [models.UniqueConstraint(fields=["world", "key"], name=f"{name}_unique_key")]
