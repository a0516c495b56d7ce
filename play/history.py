"""What a socket or a page gets of a session's messages: the newest page, older ones on demand.

A long session (thousands of messages, each keeping the state snapshot that revert and swipes
restore) never goes out whole. A socket's ``history`` frame holds the newest page and the state
once; a ``history`` request answers with the ``history_page`` before a message; the pages that
render without JavaScript show the newest page. play.framing then keeps each frame in its limit.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_noop

from play import frames
from play.costs import session_usage
from play.errors import PlayError
from play.models import Message, Session
from play.payloads import checkpoint_list, message_dict, session_dict, state_frame

UNKNOWN_ANCHOR = gettext_noop("This message does not exist in the session.")


def page_before(
    session: Session, before_position: int | None, limit: int = frames.HISTORY_PAGE
) -> tuple[list[Message], bool]:
    """Up to ``limit`` messages before ``before_position`` (None: the newest), oldest first,
    and whether older ones exist."""
    rows = session.messages.all()
    if before_position is not None:
        rows = rows.filter(position__lt=before_position)
    newest_first = list(rows.order_by("-position")[: limit + 1])
    return newest_first[:limit][::-1], len(newest_first) > limit


def recent_messages(session: Session, limit: int = frames.HISTORY_PAGE) -> list[Message]:
    return page_before(session, None, limit)[0]


def history_frame(session: Session, running: dict[str, Any] | None) -> dict[str, Any]:
    """What a socket needs on connect (or after a bulk change): the newest page and the state."""
    messages, has_more = page_before(session, None)
    return _history(session, messages, running, has_more=has_more)


def history_since(
    session: Session, running: dict[str, Any] | None, since: int | None
) -> dict[str, Any]:
    """The messages after message ``since`` (a reconnecting client's last one), to merge.

    When ``since`` is unknown or more than a page behind, the newest page instead (``since``
    null: the client replaces what it has).
    """
    anchor = session.messages.filter(pk=since).only("position").first() if since else None
    if anchor is None:
        return history_frame(session, running) | {"since": None}
    newer = session.messages.filter(position__gt=anchor.position)
    rows = list(newer.order_by("position")[: frames.HISTORY_PAGE + 1])
    if len(rows) > frames.HISTORY_PAGE:
        return history_frame(session, running) | {"since": None}
    return _history(session, rows, running, has_more=True) | {"since": anchor.pk}


def _history(
    session: Session, messages: list[Message], running: dict[str, Any] | None, *, has_more: bool
) -> dict[str, Any]:
    streaming = {m.pk for m in messages if m.status == "streaming"}
    if running and running.get("message_id") not in streaming:
        running = None  # it finished meanwhile: the saved message is the truth
    last = session.messages.order_by("-position").first() if not messages else messages[-1]
    pending = last.choices if last is not None and last.role == "assistant" else []
    return frames.history(
        session_dict(session) | {"usage": session_usage(session.pk)},
        [message_dict(m) for m in messages],
        state_frame(session),
        checkpoint_list(session),
        running,
        pending,
        has_more=has_more,
    )


def page_frame(session: Session, before: int | None, limit: int) -> dict[str, Any]:
    """The ``history_page`` of up to ``limit`` messages before message ``before``."""
    position = None
    if before is not None:
        anchor = session.messages.filter(pk=before).only("position").first()
        if anchor is None:
            raise PlayError(gettext(UNKNOWN_ANCHOR), field="before")
        position = anchor.position
    messages, has_more = page_before(session, position, limit)
    return frames.history_page(before, [message_dict(m) for m in messages], has_more)
