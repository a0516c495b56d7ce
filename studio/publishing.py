"""Publishing freezes a draft into an immutable WorldVersion; forking copies one back."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.db import connection, transaction
from django.db.models import BooleanField, ExpressionWrapper, Max, Q, QuerySet

from engine.lint import lint_source
from engine.world import WorldDefinition, WorldValidationError, export_world, load_world
from studio.access import SECRETS_KEPT, may_copy_version
from studio.models import World, WorldVersion, new_uid
from studio.worlds import import_world, world_to_dict

# Pages counted past the one shown: "Page 1 of 5+" beyond that.
LOOKAHEAD = 4
# The highest page number read as asked: a larger one is past the end of any gallery (1.2 million
# worlds at 12 a page) and reads as the last page, before it makes a LIMIT no database takes.
MAX_GALLERY_PAGE = 100_000
# An author's worlds a search by their name lists at most (the newest ones).
AUTHOR_WORLDS = 1000


def publish_world(
    world: World, changelog: str = "", *, remixable_secrets: bool = False
) -> WorldVersion:
    """Freeze the draft as the next version and list the world in the gallery.

    ``remixable_secrets`` lets others export and fork the version with its game master's
    secrets (``studio.access.may_copy_version``); it is chosen now, as versions never change.

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
            remixable_secrets=remixable_secrets,
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


def fork_world(user: User, version: WorldVersion, name: str = "") -> World:
    """Copy a published version into a new draft owned by ``user``, named ``name`` if given
    (the fork form asks for one, so two worlds of the same name do not mix in the drafts).

    PermissionDenied when ``user`` may not copy it (a game-master world's secrets,
    ``studio.access.may_copy_version``): checked here too, whoever calls.
    """
    if not may_copy_version(user, version):
        raise PermissionDenied(SECRETS_KEPT)
    data = dict(version.definition)
    data["id"] = new_uid()
    if name.strip():
        data["name"] = name.strip()[:200]
    world = import_world(user, load_world(data))
    world.forked_from = version
    world.save(update_fields=["forked_from"])
    return world


def version_definition(version: WorldVersion) -> WorldDefinition:
    """The engine's view of a frozen version."""
    return load_world(version.definition)


def gallery_worlds(query: str = "", tag: str = "", language: str = "") -> QuerySet[World]:
    """Published worlds, newest version first, filtered on their published version.

    On PostgreSQL every filter is served by an index of migrations 0007-0008 (full-text
    document, tag array, language) and the order by ``version_gallery_newest``, so a page costs
    the same with 100,000 worlds as with ten. SQLite, for development and tests, scans with
    icontains.
    """
    worlds = World.objects.filter(published=True, published_version__isnull=False).annotate(
        has_demo=ExpressionWrapper(Q(demo__isnull=False), output_field=BooleanField())
    )
    postgres = connection.vendor == "postgresql"
    if postgres:
        # Only here: django.contrib.postgres imports psycopg, a cost every process on SQLite
        # (manage.py, the test servers) would otherwise pay at start.
        from studio import gallery_postgres
    if query:
        # The author's worlds first, in a query of their own: then every condition of the
        # search is on the version row, which PostgreSQL can serve from its indexes.
        authored = World.objects.filter(owner__username__iexact=query).order_by("-pk")
        by_author = Q(
            published_version__world__in=list(authored.values_list("pk", flat=True)[:AUTHOR_WORLDS])
        )
        worlds = worlds.filter(
            (gallery_postgres.search(query) if postgres else _search_scan(query)) | by_author
        )
    if tag and postgres:
        # The array expression of the version_gallery_tags index, so that the index serves it.
        worlds = worlds.alias(tag_array=gallery_postgres.tag_array("published_version__tags"))
        worlds = worlds.filter(Q(**{"tag_array__contains": [tag.lower()]}))
    elif tag:
        worlds = worlds.filter(published_version__tags__icontains=f"|{tag}|")
    if language:
        worlds = worlds.filter(
            Q(published_version__language__iexact=language)
            | Q(published_version__language__istartswith=f"{language}-")
        )
    # The version id breaks ties: with the created_at DESC, id DESC index it is one index order.
    return worlds.select_related("owner", "published_version").order_by(
        "-published_version__created_at", "-published_version_id"
    )


def _search_scan(query: str) -> Q:
    """The portable search: substrings of the name, the description and the tags."""
    version = "published_version__"
    return (
        Q(**{f"{version}name__icontains": query})
        | Q(**{f"{version}description__icontains": query})
        | Q(**{f"{version}tags__icontains": query})
    )


class GalleryPaginator(Paginator):  # type: ignore[type-arg]  # generic in the stubs only
    """Counts the results only a few pages past the one asked for.

    COUNT(*) over every match is the dearest query of a page in a gallery of 100,000 worlds
    (every matching row is read, whatever the page). Counting at most up to ``lookahead``
    pages after ``number`` keeps a page's cost independent of the catalogue's size; the count
    is exact (``exact``) whenever the results end within that window, as in any small
    gallery, and otherwise a lower bound that grows as the reader pages on.

    The count reads the ids it counts: when they are all the results, the page is read by them
    (primary keys) rather than by the search. Otherwise, for a word the planner has no
    statistics for, it guesses 0.5% of the worlds match and walks the newest-first index to
    collect a page; for a word nobody used that walk read all 100,000 versions.
    """

    def __init__(self, object_list: QuerySet[World], per_page: int, number: Any, lookahead: int):
        super().__init__(object_list, per_page)
        self.worlds = object_list
        try:
            wanted = min(max(int(number), 1), MAX_GALLERY_PAGE)
        except (TypeError, ValueError):
            wanted = 1
        self.limit = (wanted + lookahead) * per_page
        self.exact = True
        self.counted: list[int] = []

    @cached_property
    def count(self) -> int:
        counted = self.worlds.order_by().values_list("published_version_id", flat=True)
        self.counted = list(counted[: self.limit + 1])
        self.exact = len(self.counted) <= self.limit
        return min(len(self.counted), self.limit)

    def page(self, number: Any) -> Page[World]:
        if self.count == len(self.counted):  # every result counted
            self.object_list = self.worlds.filter(published_version_id__in=self.counted)
        return super().page(number)

    @property
    def pages_label(self) -> str:
        """The number of pages, "12+" when there are more than were counted."""
        return f"{self.num_pages}" if self.exact else f"{self.num_pages}+"


def gallery_page(
    worlds: QuerySet[World], per_page: int, number: Any, lookahead: int = LOOKAHEAD
) -> Page[World]:
    """The page ``number`` of ``worlds`` (the last one if past the end), in two queries."""
    return GalleryPaginator(worlds, per_page, number, lookahead).get_page(number)
