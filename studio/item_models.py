"""The rows of a world's lists that shape the story and its UI: entry folders, entries,
variables, rules, reactions, components and the custom UI's files (seed 004 "世界 Schema").

Django registers them under the ``studio`` app because ``studio.models`` imports them.
"""

from __future__ import annotations

from django.db import models

from engine.world import API_ROLES, ENTRY_ROLES, SECTIONS
from studio.world_models import LOGIC_CHOICES, World, WorldItem, choices_of, unique_key


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
    role = models.CharField(max_length=20, choices=choices_of(ENTRY_ROLES), default="custom")
    api_role = models.CharField(max_length=10, choices=choices_of(API_ROLES), default="system")
    section = models.CharField(
        max_length=20, choices=choices_of(SECTIONS), default="system-presets"
    )
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
        choices=choices_of(("AND_ANY", "AND_ALL", "NOT_ANY", "NOT_ALL")),
        default="AND_ANY",
    )
    prevent_recursion = models.BooleanField(default=False)
    exclude_recursion = models.BooleanField(default=False)
    tags = models.JSONField(default=list, blank=True)
    folder_id = models.TextField(null=True, blank=True, default=None)  # noqa: DJ001

    class Meta(WorldItem.Meta):
        verbose_name_plural = "entries"
        constraints = unique_key("entry")


class Variable(WorldItem):
    definition_field = "variables"
    world = models.ForeignKey(World, models.CASCADE, related_name="variables")
    name = models.TextField(blank=True, default="")
    type = models.CharField(
        max_length=7, choices=choices_of(("number", "string", "boolean", "json")), default="number"
    )
    default_value = models.JSONField(null=True, blank=True)
    min = models.FloatField(null=True, blank=True)
    max = models.FloatField(null=True, blank=True)
    description = models.TextField(blank=True, default="")
    behavior_rules = models.TextField(blank=True, default="")

    class Meta(WorldItem.Meta):
        constraints = unique_key("variable")


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
        constraints = unique_key("rule")


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
        constraints = unique_key("reaction")


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
