"""Several players at one game-master session (seed 001 "Multijugador"; issue 12 §4).

The host's session opens a table with an invitation link; each player, the host included, sits
in a session of his own with one character. That session is what his sockets, his history and
his master's prompt read, so a player only ever holds what his character perceived: his own
actions and narrations, and the lines the engine delivered to him from the others' turns
(``engine.gm.delivery``). The shared world state is written to every seated session inside the
acting turn's transaction, and the turns of a table are serialised by one lock (``lock_key``),
so no turn reads a state another is about to replace. Rewinding (regenerate, swipe, edit,
revert, restore) would rewrite the others' world too, so a seated session refuses it.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from engine.gm.arrival import opening_scene
from engine.session import SessionState
from engine.world import WorldDefinition
from play import frames
from play.errors import NotFound, PlayError
from play.gm import character_of, scene_frames
from play.models import Message, Seat, Session, Table
from play.payloads import message_dict
from play.prepared import Prepared
from play.sessions import next_position, world_of

TABLE_MODES = ("live", "offline")
# What a session's state holds of its own history, not of the world: never shared.
# A newcomer starts from the defaults: the host's summaries tell what the host perceived.
PER_SESSION: dict[str, Any] = {
    "compaction_summary": "",
    "session_memory": "",
    "memory_mark": -1,
    "memory_event": 0,
}


# --- reading ------------------------------------------------------------------------------------


_SEAT = Prepared(lambda q: Seat.objects.select_related("table").filter(session_id=q.session_id)[:1])
_LOCK_KEY = Prepared(
    lambda q: Seat.objects.filter(session_id=q.session_id).values("table__host_id")[:1]
)
_LEFT_SEAT = Prepared(
    lambda q: Seat.objects.filter(session_id=q.session_id, left_at__isnull=False).values(
        "character_id"
    )[:1]
)
REMOVED = gettext_noop("The host removed you from this table.")


def seat_of(session_id: Any) -> Seat | None:
    return _SEAT.first(session_id=session_id)


def was_removed(seat: Seat) -> bool:
    """The host removed him (play.table_host): his seat keeps no character; he may not sit
    again, whatever link he holds."""
    return not seat.active and not seat.character_id


def removed_from(table: Table, user: Any) -> bool:
    return table.seats.filter(user=user, left_at__isnull=False, character_id="").exists()


def is_seated(session_id: Any) -> bool:
    """Whether the session ever sat at a table (a player who left still may not rewind)."""
    return Seat.objects.filter(session_id=session_id).exists()


def lock_key(session_id: str) -> str:
    """The turn lock's key: the table's, so the seated sessions' turns never overlap."""
    seat = _LOCK_KEY.first(session_id=session_id)
    return f"table:{seat['table__host_id']}" if seat else session_id


def table_by_token(token: str) -> Table:
    table = Table.objects.select_related("host").filter(invite_token=token).first()
    if table is None or not token:
        raise NotFound(gettext("This invitation is not valid any more."))
    return table


def active_seats(table: Table) -> list[Seat]:
    return list(table.seats.filter(left_at__isnull=True).select_related("user"))


def free_characters(table: Table) -> list[tuple[str, str]]:
    """(id, name) of the world's characters nobody at the table plays now."""
    world = world_of(table.host)
    taken = {seat.character_id for seat in active_seats(table)}
    gm = world.game_master
    return [(c.id, c.name) for c in (gm.characters if gm else []) if c.id not in taken]


def players(table: Table) -> list[dict[str, Any]]:
    """Who sits at the table, in the order they joined, with their presence."""
    gm = world_of(table.host).game_master
    names = {c.id: c.name for c in gm.characters} if gm else {}
    return [
        {
            "character": seat.character_id,
            "characterName": names.get(seat.character_id, seat.character_id),
            "player": seat.user.get_username(),
            "online": seat.sockets > 0,
            "host": seat.session_id == table.host_id,
        }
        for seat in active_seats(table)
    ]


def players_frame(table: Table) -> dict[str, Any]:
    return frames.players(players(table))


# --- opening, joining, leaving ----------------------------------------------------------------


def open_table(session: Session, user: Any) -> Table:
    """The host's table (opened on first use). Only a published game-master world played live
    or offline by its owner can seat others: a demo replay or a playtest is one person's."""
    world = world_of(session)
    if session.owner_id != getattr(user, "pk", None) or session.is_playtest:
        raise PlayError(gettext("Only the player of a published world's session can invite."))
    if world.game_master is None or not world.game_master.characters:
        raise PlayError(gettext("Only a game-master world can be played by several players."))
    if session.mode not in TABLE_MODES:
        raise PlayError(gettext("A recorded or replayed session cannot be shared."))
    seat = seat_of(session.pk)
    if seat is not None:
        if seat.table.host_id != session.pk:
            raise PlayError(gettext("Only the table's host can invite."))
        return seat.table
    with transaction.atomic():
        table = Table.objects.create(host=session, invite_token=secrets.token_urlsafe(24))
        Seat.objects.create(
            table=table,
            session=session,
            user=user,
            character_id=character_of(session, world) or "",
            sockets=1,  # he asks from his open game, whose socket was counted before any seat
        )
    return table


def join_table(user: Any, table: Table, character_id: str) -> Session:
    """Sit ``user`` at ``table`` as ``character_id``: a session of his own on the table's state.

    A player already seated gets his session back; one who left sits again in his old one."""
    with transaction.atomic():
        host = Session.objects.select_for_update().get(pk=table.host_id)
        seat = table.seats.filter(user=user).select_related("session").first()
        if seat is not None and seat.active:
            return seat.session
        if seat is not None and was_removed(seat):
            raise PlayError(gettext(REMOVED))
        if character_id not in dict(free_characters(table)):
            raise PlayError(gettext("Somebody else plays this character."), field="character")
        try:
            with transaction.atomic():
                return _sit(user, table, host, seat, character_id)
        except IntegrityError:
            raise PlayError(
                gettext("Somebody else plays this character."), field="character"
            ) from None


def _sit(user: Any, table: Table, host: Session, seat: Seat | None, character_id: str) -> Session:
    if seat is not None:
        session = seat.session
        seat.left_at, seat.character_id = None, character_id
        seat.save(update_fields=["left_at", "character_id"])
    else:
        session = Session.objects.create(
            world=host.world,
            world_version=host.world_version,
            owner=user,
            title=host.title,
            mode=host.mode,
            # a seed of his own: the host's would let him predict the table's rolls (issue 32 §3)
            dice_seed=secrets.randbits(48),
            persona_data={"name": user.get_username()},
        )
        Seat.objects.create(table=table, session=session, user=user, character_id=character_id)
    session.character_id = character_id
    session.state = _shared_with({} if seat is None else session.state, host.state)
    session.save(update_fields=["character_id", "state", "updated_at"])
    _open_scene(session, character_id)
    return session


def _open_scene(session: Session, character_id: str) -> None:
    """His first message on sitting down: his character's place as the engine's look tells
    it, strangers described, in the world's language, at no cost (issue 33 §5). A player who
    comes back finds where his character stands now."""
    world = world_of(session)
    text = opening_scene(world, SessionState.model_validate(session.state), character_id)
    Message.objects.create(
        session=session,
        position=next_position(session),
        role="assistant",
        content=text,
        raw=text,
        state=session.state,
        source="engine",
    )


def leave_table(session: Session) -> Table:
    """Stand up: the character stays where it is in the world; the session keeps its history
    and can act again only after joining anew. The host cannot leave his own table."""
    seat = seat_of(session.pk)
    if seat is None or not seat.active:
        raise PlayError(gettext("This session is not at a table."))
    if seat.table.host_id == session.pk:
        raise PlayError(gettext("The host cannot leave the table; delete the session to end it."))
    Seat.objects.filter(pk=seat.pk).update(left_at=timezone.now(), sockets=0)
    return seat.table


def ensure_may_act(session: Session) -> None:
    """A player who left the table, or was removed, reads his history but acts no more (the
    world went on)."""
    left = _LEFT_SEAT.first(session_id=session.pk)
    if left is not None and not left["character_id"]:
        raise PlayError(gettext(REMOVED))
    if left is not None:
        raise PlayError(gettext("You left this table; join it again from the invitation."))


def refuse_rewind(session_id: str) -> None:
    if is_seated(session_id):
        raise PlayError(
            gettext("At a shared table the story cannot be rewound: the others live in it too.")
        )


# --- presence -----------------------------------------------------------------------------------


def set_presence(session_id: str, delta: int) -> tuple[list[str], dict[str, Any]] | None:
    """Count a socket opened (+1) or closed (-1); the sessions to tell and the players frame."""
    updated = Seat.objects.filter(session_id=session_id, left_at__isnull=True)
    if delta > 0:
        changed = updated.update(sockets=F("sockets") + 1)
    else:
        changed = updated.filter(sockets__gt=0).update(sockets=F("sockets") - 1)
    seat = seat_of(session_id) if changed else None
    if seat is None:
        return None
    return table_sessions(seat.table), players_frame(seat.table)


def table_sessions(table: Table) -> list[str]:
    return [str(seat.session_id) for seat in active_seats(table)]


# --- a turn at the table ----------------------------------------------------------------------


def share_turn(
    session: Session,
    world: WorldDefinition,
    state: SessionState,
    delivered: dict[str, str],
) -> dict[str, list[dict[str, Any]]]:
    """Inside the acting turn's transaction: write the new state to the other seated sessions
    and each one's delivered lines as a message of its own. Returns the frames for each of
    those sessions (its new message, its character's scene)."""
    return {
        str(own.pk): _delivery(own, character, world, state, delivered)
        for own, character in share_state(session, state)
    }


def share_state(session: Session, state: SessionState) -> list[tuple[Session, str]]:
    """Write the table's new world state to the other seated sessions, each keeping its own
    memory of its history (the caller holds the table's lock, in a transaction). Returns those
    sessions with their characters; none when ``session`` sits at no table."""
    seat = seat_of(session.pk)
    if seat is None or not seat.active:
        return []
    others = [s for s in active_seats(seat.table) if s.session_id != session.pk]
    if not others:
        return []
    dumped = state.model_dump(mode="json")
    rows = Session.objects.select_for_update().filter(pk__in=[s.session_id for s in others])
    by_id = {row.pk: row for row in rows}
    out = []
    for other in others:
        own = by_id[other.session_id]
        own.state = _shared_with(own.state, dumped)
        own.save(update_fields=["state", "updated_at"])
        out.append((own, other.character_id))
    return out


def _shared_with(own: dict[str, Any] | None, shared: dict[str, Any]) -> dict[str, Any]:
    """The table's world state with this session's own memory of its history kept."""
    mine = own or {}
    return {**shared, **{key: mine.get(key, default) for key, default in PER_SESSION.items()}}


def _delivery(
    session: Session,
    character_id: str,
    world: WorldDefinition,
    state: SessionState,
    delivered: dict[str, str],
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    text = delivered.get(character_id, "").strip()
    if text:
        message = Message.objects.create(
            session=session,
            position=next_position(session),
            role="assistant",
            content=text,
            raw=text,
            state=session.state,
            source="engine",
        )
        out.append(frames.message_done(message_dict(message)))
    out.extend(scene_frames(world, state, character_id))
    return out


# --- the play page ----------------------------------------------------------------------------


def page_info(session: Session) -> dict[str, Any] | None:
    """The table card of the play page: who sits, and what this player may do (None: no card)."""
    seat = seat_of(session.pk)
    if seat is None:
        world = world_of(session)
        can_open = (
            session.owner_id is not None
            and not session.is_playtest
            and session.mode in TABLE_MODES
            and world.game_master is not None
        )
        return {"players": [], "host": True, "active": True} if can_open else None
    host = seat.table.host_id == session.pk
    return {
        "players": players(seat.table),
        "host": host,
        "active": seat.active,
        "removed": was_removed(seat),
        "character": seat.character_id,
        # the host's own page shows his current link (play.table_host makes a new one)
        "invite": reverse("play:join", args=[seat.table.invite_token]) if host else "",
    }
