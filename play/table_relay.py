"""How the lines of one player's turn reach the other players' sockets.

Every play socket joins a group of its own session's, whatever the channel layer: the
in-memory one of the embedded default (one process) and Redis alike carry it. A turn's commit
(play.turns) and the join and leave pages (play.views.tables) send each seated session only
its own frames; the consumer relays them as they come. When the host removes a player
(play.table_host), ``remove_now`` tells that session's sockets to close.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

EVENT = "play.seat"
REMOVED = "play.removed"  # the host removed this session's player: its sockets close


def seat_group(session_id: str) -> str:
    return f"play.seat.{session_id}"


async def send(frames_by_session: dict[str, list[dict[str, Any]]]) -> None:
    """Send each session its frames; a failure is logged, never raised into a committed turn."""
    layer = get_channel_layer()
    for session_id, frames in frames_by_session.items():
        if not frames:
            continue
        try:
            await layer.group_send(seat_group(session_id), {"type": EVENT, "frames": frames})
        except Exception:
            log.exception("could not deliver a table frame to session %s", session_id)


def send_now(frames_by_session: dict[str, list[dict[str, Any]]]) -> None:
    """``send`` from synchronous code (a view)."""
    async_to_sync(send)(frames_by_session)


def to_all(session_ids: list[str], frame: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {session_id: [frame] for session_id in session_ids}


def remove_now(session_id: str) -> None:
    """Tell the sockets of a removed player's session to close (play.consumers)."""

    async def send_one() -> None:
        try:
            await get_channel_layer().group_send(seat_group(session_id), {"type": REMOVED})
        except Exception:
            log.exception("could not close the sockets of removed session %s", session_id)

    async_to_sync(send_one)()
