"""Who may see and change a world. Fail closed: first line of every view and API operation.

Drafts are visible to their owner only (404 for everyone else, so their existence does not
leak); a published world is readable by anyone and writable by its owner only (403). Even then
others read its published versions, never the live draft's rows (``get_draft_for_user``), and
a game-master world's versions are played, not copied (``get_version_to_copy``).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404

from studio.models import World, WorldVersion


def visible_worlds(user: Any) -> QuerySet[World]:
    """Worlds ``user`` may read: their own and every published one."""
    if user is None or not user.is_authenticated:
        return World.objects.filter(published=True)
    return World.objects.filter(Q(owner=user) | Q(published=True))


def get_world_for_user(user: Any, world_id: int, *, write: bool = False) -> World:
    """The world if ``user`` may read it (and change it, with ``write``).

    Raises Http404 when it does not exist or is not visible, PermissionDenied when read-only.
    """
    world = visible_worlds(user).select_related("owner").filter(pk=world_id).first()
    if world is None:
        raise Http404("world not found")
    if write and world.owner_id != getattr(user, "pk", None):
        raise PermissionDenied("this world is read-only for you")
    return world


def get_draft_for_user(user: Any, world_id: int) -> World:
    """The world if ``user`` may read its live draft (rows, settings, exports): the owner only.

    Raises Http404 when the world is not visible, PermissionDenied on someone else's published
    world, whose unpublished edits stay private.
    """
    world = get_world_for_user(user, world_id)
    if world.owner_id != getattr(user, "pk", None):
        raise PermissionDenied("only the owner can read the draft; export a version")
    return world


def get_version_for_user(user: Any, version_id: int) -> WorldVersion:
    """A published version: readable by anyone while its world is listed, always by its owner.

    Versions of an unpublished world stay readable by their owner only; a session already
    holding a version does not go through this check.
    """
    version = WorldVersion.objects.select_related("world").filter(pk=version_id).first()
    if version is None:
        raise Http404("version not found")
    world = version.world
    if not world.published and world.owner_id != getattr(user, "pk", None):
        raise Http404("version not found")
    return version


SECRETS_KEPT = (
    "this game-master world's secrets stay with its creator: only a version published as "
    "remixable with its secrets can be exported or forked by others"
)


def may_copy_version(user: Any, version: WorldVersion) -> bool:
    """Whether ``user`` may export or fork ``version`` whole.

    A game-master world's JSON is its solution (GM notes, NPC secrets, hidden places, clues,
    every character's sheet): its players must not read it, so others copy it only when the
    creator published the version as remixable with its secrets. A plain world's version is its
    source, copied by anyone who may read it. The owner always may.
    """
    if version.world.owner_id == getattr(user, "pk", None) or version.remixable_secrets:
        return True
    return version.definition.get("gameMaster") is None


def get_version_to_copy(user: Any, version_id: int) -> WorldVersion:
    """A version ``user`` may export or fork: ``get_version_for_user``, then PermissionDenied
    (``SECRETS_KEPT``) on someone else's game-master version that is not remixable."""
    version = get_version_for_user(user, version_id)
    if not may_copy_version(user, version):
        raise PermissionDenied(SECRETS_KEPT)
    return version
