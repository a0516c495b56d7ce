"""studio.access: drafts are private (404), published worlds read-only for others (403)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from studio.access import get_version_for_user, get_world_for_user, visible_worlds
from studio.publishing import publish_world, unpublish_world


def test_owner_reads_and_writes_the_draft(alice, world):
    assert get_world_for_user(alice, world.pk) == world
    assert get_world_for_user(alice, world.pk, write=True) == world


def test_a_draft_does_not_exist_for_others(bob, charlie, world):
    for user in (bob, charlie, AnonymousUser(), None):
        with pytest.raises(Http404):
            get_world_for_user(user, world.pk)


def test_a_missing_world_is_404(alice):
    with pytest.raises(Http404):
        get_world_for_user(alice, 999_999)


def test_a_published_world_is_readable_by_anyone_but_read_only(bob, world):
    publish_world(world)
    assert get_world_for_user(bob, world.pk) == world
    assert get_world_for_user(AnonymousUser(), world.pk) == world
    with pytest.raises(PermissionDenied):
        get_world_for_user(bob, world.pk, write=True)
    with pytest.raises(PermissionDenied):
        get_world_for_user(AnonymousUser(), world.pk, write=True)


def test_unpublishing_hides_the_world_again(bob, world):
    publish_world(world)
    unpublish_world(world)
    with pytest.raises(Http404):
        get_world_for_user(bob, world.pk)


def test_versions_follow_their_world(alice, bob, world):
    version = publish_world(world)
    assert get_version_for_user(bob, version.pk) == version
    unpublish_world(world)
    assert get_version_for_user(alice, version.pk) == version
    with pytest.raises(Http404):
        get_version_for_user(bob, version.pk)
    with pytest.raises(Http404):
        get_version_for_user(bob, 999_999)


def test_visible_worlds_are_own_plus_published(alice, bob, charlie, world):
    from tests.factories import make_world

    bobs = make_world(bob, name="Bob's")
    publish_world(bobs)
    assert set(visible_worlds(alice)) == {world, bobs}
    assert set(visible_worlds(charlie)) == {bobs}
    assert set(visible_worlds(AnonymousUser())) == {bobs}
