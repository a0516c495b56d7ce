"""Periodic upkeep of play, run by Celery beat (issue 13 §4; config/celery.py has the schedule).

``purge_guests`` deletes guest previews untouched for a day (what the ``purge_guest_sessions``
command does from cron), and with them the custom-UI storage of guests left with no session
and of sessions that are gone (``play.ui_storage.purge``). ``decay_npc_memories`` prunes, in
every game-master session, the NPC memories its game day has made forgotten (engine.gm.decay); a
session with a turn in flight is left for the next run, since the turn commits the state it
started from.
"""

from __future__ import annotations

import logging
from uuid import UUID

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from engine.gm.decay import prune_forgotten
from play import ui_storage
from play.models import Session
from play.playtests import purge_guest_sessions
from play.sessions import state_of, world_of

log = logging.getLogger(__name__)


@shared_task(name="play.purge_guests")  # type: ignore[untyped-decorator]
def purge_guests() -> int:
    deleted = purge_guest_sessions(timezone.now())
    stored = ui_storage.purge()
    if deleted or stored:
        log.info("purged %d guest session(s), %d storage row(s)", deleted, stored)
    return deleted


@shared_task(name="play.decay_npc_memories")  # type: ignore[untyped-decorator]
def decay_npc_memories() -> int:
    """Prune forgotten NPC memories; returns how many were dropped in all."""
    ids = Session.objects.filter(state__has_key="gm").values_list("pk", flat=True)
    return sum(_decay(session_id) for session_id in ids.iterator())


def _decay(session_id: UUID) -> int:
    with transaction.atomic():
        session = Session.objects.select_for_update().filter(pk=session_id).first()
        if session is None or session.turn_owner:
            return 0
        world = world_of(session)
        state = state_of(session)
        if world.game_master is None or state.gm is None:
            return 0
        dropped = prune_forgotten(world.game_master, state.gm)
        if dropped:
            session.state = state.model_dump(mode="json")
            session.save(update_fields=["state"])  # not "touched": a guest preview still expires
        return dropped
