"""Who is writing a session's reply, and taking over a turn whose process died (issue 17).

A turn claims its session in the database when it starts (play.replies.prepare_turn, under the
row lock): ``Session.turn_owner`` names the machine, process and lock token, ``turn_heartbeat``
is renewed every few seconds by the process while the turn runs, and ``turn_version`` is a
fencing version bumped by every claim and every takeover. The Redis lock stays the quick "busy";
the claim is what survives a Redis restart and what a commit checks, so a turn that lost its
session fails cleanly instead of overwriting the state of the turn that replaced it.

A claim is orphaned when its process is gone (same machine and pid namespace, pid dead or
reused) or its heartbeat is older than ``FABULA_TURN_STALE_SECONDS``. Whoever notices first takes
it over: a socket joining, a send refused as busy, or the process supervisor watching a turn that
streams elsewhere. Taking over bumps the version, marks the reply failed, frees the dead owner's
lock and pushes ``message_failed`` to every socket of the session.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Now

from play import frames
from play.errors import SessionBusy
from play.locks import lock_backend
from play.models import Message, Session
from play.payloads import message_dict
from play.prepared import PreparedUpdate
from play.relay import relay
from play.sessions import fail_stale_messages

log = logging.getLogger(__name__)


class TurnFenced(Exception):
    """The session was taken over since this turn claimed it; its result must not be saved."""


def heartbeat_seconds() -> float:
    return float(getattr(settings, "FABULA_TURN_HEARTBEAT_SECONDS", 2.0))


def stale_seconds() -> float:
    return float(getattr(settings, "FABULA_TURN_STALE_SECONDS", 8.0))


# --- owners ----------------------------------------------------------------------------------


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks (tells a reused pid apart); None when gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return None if fields[0] in ("Z", "X") else fields[19]


@functools.cache
def _machine() -> str:
    host = str(getattr(settings, "FABULA_HOST_ID", "") or socket.gethostname())
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = ""
    return f"{host}/{namespace}".replace("|", "/")


def process_identity() -> str:
    return _identity_of(os.getpid())  # the pid each time: a forked worker is another process


@functools.cache
def _identity_of(pid: int) -> str:
    """Read once per process: /proc would cost a file read on every turn."""
    return f"{_machine()}|{pid}|{_start_time(pid) or '-'}"


def owner_of(token: str) -> str:
    """The claim a turn holding the lock ``token`` writes: this process and the token."""
    return f"{process_identity()}|{token}"


def token_of(owner: str) -> str:
    return owner.rsplit("|", 1)[-1] if owner.count("|") == 3 else ""


def owner_alive(owner: str) -> bool | None:
    """Whether the claim's process still runs; None when it runs on another machine."""
    parts = owner.split("|")
    if len(parts) != 4 or parts[0] != _machine():
        return None
    pid, started = int(parts[1]), parts[2]
    now_started = _start_time(pid)
    if now_started is None:
        if Path("/proc/self/stat").exists():
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return started in ("-", now_started)


# --- claims (sync, inside the caller's transaction, session row locked) --------------------


_CLAIM = PreparedUpdate(
    lambda q: Session.objects.filter(pk=q.pk),
    lambda q: {
        "turn_owner": q.owner,
        "turn_heartbeat": Now(),
        "turn_version": F("turn_version") + 1,
    },
)


def claim_session(session: Session, owner: str) -> int:
    """Claim the locked session for a turn and return its fence; busy while another holds it."""
    if session.turn_owner and session.turn_owner != owner:
        raise SessionBusy(None)
    _CLAIM(pk=session.pk, owner=owner)
    session.turn_owner = owner
    session.turn_version += 1
    return session.turn_version


CLAIM_FIELDS = ["turn_owner", "turn_heartbeat"]  # what ``end_claim(save=False)`` leaves to save


def end_claim(session: Session, owner: str, fence: int, *, save: bool = True) -> None:
    """Give the claim back at commit or failure; TurnFenced when it was taken over meanwhile.

    ``save=False``: the caller saves ``CLAIM_FIELDS`` with its own update (one query, not two).
    """
    if session.turn_version != fence or session.turn_owner != owner:
        raise TurnFenced(str(session.pk))
    if save:
        Session.objects.filter(pk=session.pk).update(turn_owner="", turn_heartbeat=None)
    session.turn_owner = ""
    session.turn_heartbeat = None


_CLAIM_FIELDS = ("pk", "turn_owner", "turn_heartbeat")


def _stale(session_ids: list[str]) -> set[str]:
    limit = Now() - timedelta(seconds=stale_seconds())
    rows = Session.objects.filter(pk__in=session_ids, turn_heartbeat__lt=limit)
    return {str(pk) for pk in rows.values_list("pk", flat=True)}


def _orphaned(session: Session) -> bool:
    if not session.turn_owner or session.turn_heartbeat is None:
        return True
    if owner_alive(session.turn_owner) is False:
        return True
    return str(session.pk) in _stale([str(session.pk)])


@dataclass
class Takeover:
    """What taking over an orphaned turn did: whose it was and the replies it marked failed."""

    owner: str
    failed: list[dict[str, Any]] = field(default_factory=list)


def take_over(session_id: str) -> Takeover | None:
    """Fence out the session's turn if it is orphaned and fail its replies; None if it lives."""
    with transaction.atomic():
        session = Session.objects.select_for_update().filter(pk=session_id).first()
        if session is None:
            return None
        streaming = session.messages.filter(status="streaming").exists()
        if not streaming and not session.turn_owner:
            return None
        if not _orphaned(session):
            return None
        owner = session.turn_owner
        Session.objects.filter(pk=session.pk).update(
            turn_owner="", turn_heartbeat=None, turn_version=F("turn_version") + 1
        )
        failed = [message_dict(m) for m in fail_stale_messages(session)]
    log.warning("took over the orphaned turn of session %s (owner %r)", session_id, owner)
    return Takeover(owner, failed)


def turn_status(session_id: str) -> str:
    """``idle``, ``live`` (a turn of a live process) or ``orphaned``."""
    session = Session.objects.filter(pk=session_id).only(*_CLAIM_FIELDS).first()
    if session is None:
        return "idle"
    if not session.turn_owner and not session.messages.filter(status="streaming").exists():
        return "idle"
    return "orphaned" if _orphaned(session) else "live"


def beat(session_ids: list[str]) -> int:
    """Renew the heartbeat of this process's claims on these sessions."""
    return Session.objects.filter(
        pk__in=session_ids, turn_owner__startswith=process_identity() + "|"
    ).update(turn_heartbeat=Now())


def orphans_among(session_ids: list[str]) -> tuple[list[str], list[str]]:
    """Of sessions watched for a turn elsewhere: the orphaned ones, and all still in flight."""
    rows = list(Session.objects.filter(pk__in=session_ids).only(*_CLAIM_FIELDS))
    streaming = set(
        Message.objects.filter(session_id__in=session_ids, status="streaming").values_list(
            "session_id", flat=True
        )
    )
    in_flight = [s for s in rows if s.turn_owner or s.pk in streaming]
    stale = _stale([str(s.pk) for s in in_flight]) if in_flight else set()
    orphans = [
        str(s.pk)
        for s in in_flight
        if not s.turn_owner
        or s.turn_heartbeat is None
        or str(s.pk) in stale
        or owner_alive(s.turn_owner) is False
    ]
    return orphans, [str(s.pk) for s in in_flight]


# --- taking over (async) ---------------------------------------------------------------------


async def recover(session_id: str) -> bool:
    """Take over the session's orphaned turn and tell every socket; False when none is."""
    taken = await database_sync_to_async(take_over)(session_id)
    if taken is None:
        return False
    try:
        await lock_backend().release_token(session_id, token_of(taken.owner))
    except Exception:
        log.warning("could not free the lock of session %s", session_id, exc_info=True)
    for message in taken.failed:
        relay.publish(
            session_id, frames.message_failed(message["id"], message["error"] or "", message)
        )
    return True


async def turn_elsewhere(session_id: str) -> bool:
    """Whether a live turn of another process writes this session's reply (for a joining socket).

    An orphaned turn is taken over first, so the history that follows already shows it failed.
    """
    status = await database_sync_to_async(turn_status)(session_id)
    if status == "orphaned":
        await recover(session_id)
        return False
    if status == "live":
        supervisor.watch(session_id)
        return True
    return False


async def ensure_idle(session_id: str) -> None:
    """Refuse a quick change while a turn claims the session, even if Redis forgot its lock."""
    status = await database_sync_to_async(turn_status)(session_id)
    if status == "orphaned":
        await recover(session_id)
    elif status == "live":
        raise SessionBusy(None)


# --- the process supervisor ------------------------------------------------------------------


class Supervisor:
    """Once a heartbeat: renew this process's claims, and take over watched orphaned turns.

    One UPDATE for all of the process's running turns and one look at the sessions whose sockets
    here watch a turn of another process; it stops when there is neither.
    """

    def __init__(self) -> None:
        self.watched: set[str] = set()
        self._task: asyncio.Task[None] | None = None

    def ensure(self) -> None:
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._task.get_loop() is not loop:
            self._task = loop.create_task(self._run())

    def watch(self, session_id: str) -> None:
        self.watched.add(session_id)
        self.ensure()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(heartbeat_seconds())
            try:
                if not await self.tick():
                    return
            except Exception:
                log.warning("the turn supervisor could not reach the database", exc_info=True)

    async def tick(self) -> bool:
        """One round; False when there is nothing left to look after."""
        running = [sid for sid, hub in list(relay.hubs.items()) if hub.running is not None]
        watched = [
            sid
            for sid in self.watched
            if (hub := relay.hubs.get(sid)) is not None and hub.subscribers and hub.running is None
        ]
        self.watched = set(watched)
        # Off the process's shared database thread: a queue of commits there must not make a
        # live turn look dead to the other processes.
        if running:
            await database_sync_to_async(beat, thread_sensitive=False)(running)
        if watched:
            look = database_sync_to_async(orphans_among, thread_sensitive=False)
            orphans, in_flight = await look(watched)
            self.watched &= set(in_flight)
            for session_id in orphans:
                await recover(session_id)
        return bool(running or self.watched)


supervisor = Supervisor()
