"""Signing out closes the user's open play sockets.

A socket outlives the HTTP session it was opened with, so without this a socket opened before
logging out would keep playing as the user. Each signed-in socket joins two channel-layer
groups: its user's (``user.<id>``) and its Django session's (``session.<key>``). Logging out
(``user_logged_out``) tells the user's group, closing every socket of that user; a session
deleted any other way (flushed by a login as someone else, expired sessions cleared, the admin)
tells its session's group. The consumer closes on the ``session.logout`` message. Guests join
neither group: their sockets do not depend on anyone's account.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth.signals import user_logged_out
from django.contrib.sessions.models import Session
from django.db.models.signals import post_delete
from django.dispatch import receiver

log = logging.getLogger(__name__)

LOGOUT_EVENT = "session.logout"


def user_group(user_id: Any) -> str:
    return f"user.{user_id}"


def session_group(session_key: str) -> str:
    return f"session.{session_key}"


def groups_for(user: Any, session_key: str | None) -> list[str]:
    """The groups a socket joins to be closed when its user signs out; none for a guest."""
    if not getattr(user, "is_authenticated", False):
        return []
    groups = [user_group(user.pk)]
    if session_key:
        groups.append(session_group(session_key))
    return groups


def _tell(group: str) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": LOGOUT_EVENT})
    except Exception:
        # Logging out must work with the channel layer down; the sockets still lose access
        # at their next connect, since the session is gone.
        log.warning("could not tell %s to close its sockets", group, exc_info=True)


@receiver(user_logged_out, dispatch_uid="play.signouts.close_user_sockets")
def close_user_sockets(sender: Any, request: Any = None, user: Any = None, **kw: Any) -> None:
    if user is not None and user.pk is not None:
        _tell(user_group(user.pk))


@receiver(post_delete, sender=Session, dispatch_uid="play.signouts.close_session_sockets")
def close_session_sockets(sender: Any, instance: Session, **kw: Any) -> None:
    _tell(session_group(instance.session_key))
