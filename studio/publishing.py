"""Publishing freezes a draft into an immutable WorldVersion; forking copies one back."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import BooleanField, ExpressionWrapper, Max, Q, QuerySet

from engine.lint import lint_source
from engine.world import WorldDefinition, WorldValidationError, export_world, load_world
from studio.models import World, WorldVersion, new_uid
from studio.worlds import import_world, world_to_dict


def publish_world(world: World, changelog: str = "") -> WorldVersion:
    """Freeze the draft as the next version and list the world in the gallery.

    An invalid draft, or one the linter finds errors in (``engine.lint``: unknown references,
    empty greetings…), raises WorldValidationError with every error as ``path: message``, and
    nothing is published. Warnings do not stop it.
    """
    data = world_to_dict(world)
    errors = [str(f) for f in lint_source(data) if f.severity == "error"]
    if errors:
        raise WorldValidationError(errors)
    definition = load_world(data)
    with transaction.atomic():
        World.objects.select_for_update().filter(pk=world.pk).first()
        last = world.versions.aggregate(n=Max("number"))["n"] or 0
        version = WorldVersion.objects.create(
            world=world,
            number=last + 1,
            changelog=changelog[:500],
            **frozen_fields(definition),
        )
        world.published = True
        world.published_version = version
        world.save(update_fields=["published", "published_version", "updated"])
    return version


def frozen_fields(definition: WorldDefinition) -> dict[str, Any]:
    """The columns of a WorldVersion for ``definition``."""
    tags = "".join(f"|{t}" for t in definition.custom_tags)
    return {
        "definition": export_world(definition),
        "content_hash": definition.content_hash,
        "name": definition.name,
        "description": definition.description,
        "language": definition.language or "",
        "tags": f"{tags}|" if tags else "",
    }


def unpublish_world(world: World) -> World:
    """Take the world out of the gallery; its versions and the sessions using them stay."""
    world.published = False
    world.save(update_fields=["published", "updated"])
    return world


def fork_world(user: User, version: WorldVersion) -> World:
    """Copy a published version into a new draft owned by ``user``."""
    data = dict(version.definition)
    data["id"] = new_uid()
    world = import_world(user, load_world(data))
    world.forked_from = version
    world.save(update_fields=["forked_from"])
    return world


def version_definition(version: WorldVersion) -> WorldDefinition:
    """The engine's view of a frozen version."""
    return load_world(version.definition)


def gallery_worlds(query: str = "", tag: str = "", language: str = "") -> QuerySet[World]:
    """Published worlds, newest version first, filtered on their published version."""
    worlds = World.objects.filter(published=True, published_version__isnull=False).annotate(
        has_demo=ExpressionWrapper(Q(demo__isnull=False), output_field=BooleanField())
    )
    if query:
        worlds = worlds.filter(
            Q(published_version__name__icontains=query)
            | Q(published_version__description__icontains=query)
            | Q(owner__username__iexact=query)
        )
    if tag:
        worlds = worlds.filter(published_version__tags__icontains=f"|{tag}|")
    if language:
        worlds = worlds.filter(
            Q(published_version__language__iexact=language)
            | Q(published_version__language__istartswith=f"{language}-")
        )
    return worlds.select_related("owner", "published_version").order_by(
        "-published_version__created_at", "-pk"
    )
