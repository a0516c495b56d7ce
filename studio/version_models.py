"""Published worlds: the frozen ``WorldVersion`` rows that sessions point to, which refuse to
change once written.

Apart from the draft's rows because a version is read by play as much as by the studio;
Django registers it under the ``studio`` app because ``studio.models`` imports it.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from studio.world_models import World


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
    # The creator's opt-in, at publishing: others may export and fork this version with its
    # game master's secrets (studio.access.may_copy_version). Off, they may not at all.
    remixable_secrets = models.BooleanField(default=False)
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
