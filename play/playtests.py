"""Studio playtests and guest previews: the throwaway sessions (mission P4).

A playtest plays a snapshot of the draft taken when it starts; "reset" throws the old one away
and snapshots the draft again, so a creator always tests what the editor shows. A guest preview
is a session tied to the browser's Django session key; it is unreachable once that session ends
and deleted after ``GUEST_TTL``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from play.models import Session
from play.sessions import start_playtest, start_session
from studio.models import World, WorldVersion
from studio.services import export_world_json

GUEST_TTL = timedelta(days=1)


def current_playtest(user: Any, world: World) -> Session | None:
    """The user's running playtest of ``world``, if any."""
    return (
        Session.objects.filter(owner=user, world=world, world_version__isnull=True)
        .order_by("-created_at")
        .first()
    )


def playtest_memory(user: Any, world: World) -> str:
    """The session memory the user's running playtest of ``world`` holds ("" without one)."""
    session = current_playtest(user, world)
    memory = (session.state or {}).get("session_memory") if session is not None else None
    return memory if isinstance(memory, str) else ""


def reset_playtest(user: Any, world: World, *, mode: str = "live") -> Session:
    """Delete the user's playtests of ``world`` and start a new one on the current draft.

    An invalid draft raises WorldValidationError and the old playtest is kept.
    """
    definition = export_world_json(world)
    with transaction.atomic():
        session = start_playtest(user, world, definition, mode=mode)
        Session.objects.filter(owner=user, world=world, world_version__isnull=True).exclude(
            pk=session.pk
        ).delete()
    return session


def start_guest_preview(version: WorldVersion, guest_key: str, now: datetime) -> Session:
    """A guest's preview of a published version; stale previews of everyone are purged first."""
    purge_guest_sessions(now)
    return start_session(None, version, guest_key=guest_key)


def purge_guest_sessions(now: datetime) -> int:
    """Delete guest sessions untouched for ``GUEST_TTL``; returns how many went."""
    _, by_model = Session.objects.filter(
        owner__isnull=True, updated_at__lt=now - GUEST_TTL
    ).delete()
    return by_model.get("play.Session", 0)
