"""The host's hand on his table (issue 32 §10): a new invitation link, and removing a player.

Only the host, the owner of the session that opened the table, may do either; anybody else is
refused with the same words, whatever seat he holds. A new link replaces the old one at once:
the old one finds no table any more (``play.tables.table_by_token``), and the seated players
keep their seats. A removed player stands up like one who left: his character stays where it
is in the world and his history stays his to read; but his seat keeps no character, so he may
not sit again with any link (``play.tables.was_removed``), and he acts no more. The caller tells
his sockets to close (``play.table_relay.remove``); his page says why.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from play.errors import PlayError
from play.models import Seat, Session, Table
from play.tables import seat_of


class NotHost(PlayError):
    """Somebody other than the host asked for the host's actions."""

    status = 403


def host_table(session: Session, user: Any) -> Table:
    """The table ``session`` hosts, when ``user`` owns it; NotHost otherwise."""
    seat = seat_of(session.pk)
    owner = session.owner_id is not None and session.owner_id == getattr(user, "pk", None)
    if seat is None or not owner or seat.table.host_id != session.pk:
        raise NotHost(gettext("Only the table's host can do this."))
    return seat.table


def rotate_invite(session: Session, user: Any) -> Table:
    """A new invitation link for the host's table; the old one stops working."""
    table = host_table(session, user)
    table.invite_token = secrets.token_urlsafe(24)
    table.save(update_fields=["invite_token"])
    return table


def remove_player(session: Session, user: Any, character_id: str) -> tuple[Table, str]:
    """Remove whoever plays ``character_id`` at the host's table (never the host himself).
    Returns the table and the removed player's session id."""
    table = host_table(session, user)
    with transaction.atomic():
        seat = (
            table.seats.select_for_update()
            .filter(character_id=character_id, left_at__isnull=True)
            .exclude(session_id=table.host_id)
            .first()
        )
        if not character_id or seat is None:
            raise PlayError(gettext("Nobody else plays this character at your table."))
        Seat.objects.filter(pk=seat.pk).update(left_at=timezone.now(), sockets=0, character_id="")
    return table, str(seat.session_id)
