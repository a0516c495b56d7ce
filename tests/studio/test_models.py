"""studio.models: columns cover the schema, versions are immutable, lists keep their order."""

from __future__ import annotations

import pytest
from django.db import IntegrityError

from studio.models import BGMPlaylist, Entry, ImmutableError, World, WorldVersion
from studio.parts import PARTS
from studio.publishing import publish_world


@pytest.mark.parametrize("part", PARTS, ids=lambda p: p.field)
def test_every_schema_field_has_a_column(part):
    columns = {f.name for f in part.model._meta.get_fields()}
    missing = set(part.columns().values()) - columns
    assert missing == set()


def test_a_published_version_refuses_to_change(world):
    version = publish_world(world)
    version.changelog = "rewritten"
    with pytest.raises(ImmutableError):
        version.save()
    with pytest.raises(ImmutableError):
        WorldVersion.objects.filter(pk=version.pk).update(changelog="sneaky")
    version.refresh_from_db()
    assert version.changelog == ""


def test_version_numbers_are_unique_per_world(world):
    version = publish_world(world)
    with pytest.raises(IntegrityError):
        WorldVersion.objects.create(
            world=world, number=version.number, definition={}, content_hash="x", name="x"
        )


def test_entry_ids_are_unique_per_world_only(world, alice):
    other = World.objects.create(owner=alice, name="Other")
    Entry.objects.create(world=other, key="narrator")
    with pytest.raises(IntegrityError):
        Entry.objects.create(world=world, key="narrator")


def test_items_are_ordered_by_position(world):
    Entry.objects.create(world=world, key="first", position=0)
    world.entries.filter(key="narrator").update(position=5)
    assert list(world.entries.values_list("key", flat=True)) == ["first", "narrator"]


def test_a_world_has_at_most_one_playlist(world):
    BGMPlaylist.objects.create(world=world)
    with pytest.raises(IntegrityError):
        BGMPlaylist.objects.create(world=world)


def test_deleting_a_world_deletes_its_rows_and_versions(world):
    publish_world(world)
    world.delete()
    assert Entry.objects.count() == 0
    assert WorldVersion.objects.count() == 0
