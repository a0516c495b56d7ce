"""studio.publishing: frozen versions, unpublish, fork, gallery."""

from __future__ import annotations

from engine.world import load_world
from studio.models import Entry, World
from studio.publishing import (
    fork_world,
    gallery_worlds,
    publish_world,
    unpublish_world,
    version_definition,
)
from studio.worlds import create_item, export_world_json, update_world
from tests.factories import make_world


def test_publish_freezes_the_export_and_its_hash(world):
    version = publish_world(world, "First light")
    world.refresh_from_db()
    assert version.number == 1
    assert version.changelog == "First light"
    assert version.definition == export_world_json(world)
    assert version.content_hash == load_world(version.definition).content_hash
    assert (world.published, world.published_version) == (True, version)


def test_numbers_increment_and_old_versions_stay_frozen(world):
    first = publish_world(world)
    create_item(world, Entry, {"id": "later"})
    second = publish_world(world)
    first.refresh_from_db()
    assert second.number == 2
    assert [e["id"] for e in first.definition["entries"]] == ["narrator"]
    assert [e["id"] for e in second.definition["entries"]] == ["narrator", "later"]
    assert first.content_hash != second.content_hash


def test_editing_the_draft_does_not_touch_the_version(world):
    version = publish_world(world)
    update_world(world, {"name": "Renamed"})
    version.refresh_from_db()
    assert version.name == "The Salt Road"
    assert version_definition(version).name == "The Salt Road"


def test_unpublish_hides_from_gallery_but_keeps_versions(world):
    version = publish_world(world)
    unpublish_world(world)
    assert list(gallery_worlds()) == []
    assert world.versions.get() == version


def test_fork_copies_a_version_into_the_users_draft(bob, world):
    version = publish_world(world)
    create_item(world, Entry, {"id": "unpublished-edit"})
    fork = fork_world(bob, version)
    assert fork.owner == bob
    assert fork.uid != world.uid
    assert fork.forked_from == version
    assert fork.published is False
    exported = export_world_json(fork)
    assert exported == {**version.definition, "id": fork.uid}


def test_gallery_filters_on_the_published_version(alice, bob, world):
    update_world(world, {"customTags": ["desert"]})
    publish_world(world)
    update_world(world, {"name": "Draft-only name"})
    other = make_world(bob, name="Frost Keep", language="es", customTags=["snow"], id="")
    publish_world(other)
    make_world(bob, name="Unpublished Salt", id="")

    def names(**kw):
        return [w.published_version.name for w in gallery_worlds(**kw)]

    assert names() == ["Frost Keep", "The Salt Road"]
    assert names(query="salt") == ["The Salt Road"]
    assert names(query="draft-only") == []
    assert names(tag="desert") == ["The Salt Road"]
    assert names(tag="des") == []
    assert names(language="es") == ["Frost Keep"]


def test_gallery_lists_without_n_plus_one(bob, django_assert_num_queries):
    for i in range(4):
        publish_world(make_world(bob, name=f"World {i}", id=""))
    with django_assert_num_queries(1):
        rows = [(w.owner.username, w.published_version.name) for w in gallery_worlds()]
    assert len(rows) == 4
    assert World.objects.count() == 4
