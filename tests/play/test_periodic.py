"""The periodic upkeep Celery beat runs (issue 13 §4; play.periodic, config/celery.py): the
guest-session purge, NPC memory decay by game day, stale evaluations."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from config.celery import app
from engine.gm.play import ensure_gm_state
from engine.gm.world import Memory
from engine.session import SessionState
from play.models import Session
from play.periodic import decay_npc_memories, purge_guests
from play.sessions import start_session, world_of
from studio.demo import gm_demo_definition
from studio.publishing import publish_world
from studio.worlds import import_world
from tests.factories import make_world

pytestmark = pytest.mark.django_db


def test_beat_schedules_the_purge_the_decay_and_the_stale_clean_up():
    app.loader.import_default_modules()
    schedule = {entry["task"] for entry in app.conf.beat_schedule.values()}

    assert schedule == {
        "play.purge_guests",
        "play.decay_npc_memories",
        "studio.evaluations.clean_stale",
    }
    assert schedule <= set(app.tasks)


def test_the_purge_deletes_guest_previews_untouched_for_a_day(alice):
    version = publish_world(make_world(alice))
    old = start_session(None, version, guest_key="g-old")
    fresh = start_session(None, version, guest_key="g-new")
    mine = start_session(alice, version)
    Session.objects.filter(pk__in=[old.pk, mine.pk]).update(
        updated_at=timezone.now() - timedelta(days=2)
    )

    assert purge_guests.apply().get() == 1

    assert set(Session.objects.values_list("pk", flat=True)) == {fresh.pk, mine.pk}


def gm_session(user, *, day: int, memories: list[Memory]) -> Session:
    version = publish_world(import_world(user, gm_demo_definition()))
    session = start_session(user, version)
    world = world_of(session)
    state = SessionState.initial(world)
    gm = ensure_gm_state(world, state, 1)
    gm.clock.day = day
    gm.memories["hilda"] = memories
    session.state = state.model_dump(mode="json")
    session.save()
    return session


def remembered(session: Session) -> list[int]:
    session.refresh_from_db()
    return [m["importance"] for m in session.state["gm"]["memories"]["hilda"]]


def test_the_decay_prunes_memories_forgotten_by_the_game_day(alice):
    session = gm_session(
        alice,
        day=10,
        memories=[
            Memory(about="ren", text="He paid his bill.", importance=1, day=2),
            Memory(about="ren", text="He asked about Jory.", importance=2, day=2),
        ],
    )
    touched = Session.objects.get(pk=session.pk).updated_at

    assert decay_npc_memories.apply().get() == 1

    assert remembered(session) == [2]
    assert Session.objects.get(pk=session.pk).updated_at == touched  # a preview still expires


def test_the_decay_leaves_a_session_with_a_turn_in_flight_for_the_next_run(alice):
    forgotten = [Memory(about="ren", text="He paid his bill.", importance=1, day=1)]
    session = gm_session(alice, day=10, memories=forgotten)
    Session.objects.filter(pk=session.pk).update(turn_owner="worker-1:token")

    assert decay_npc_memories.apply().get() == 0

    assert remembered(session) == [1]


def test_the_decay_skips_plain_worlds(alice):
    start_session(alice, publish_world(make_world(alice)))

    assert decay_npc_memories.apply().get() == 0
