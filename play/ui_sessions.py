"""Session management for a world's custom UI (seed 004 "会话管理"; issue 15).

``listSessions``, ``createSession``, ``deleteSession``, ``restartChat`` and ``getBranchContext``
reach only the signed-in player's own sessions of the session's own world: a guest preview (the
snapshot's ``capabilities.canUseSessionApis`` false) is refused by name, another world's id is
refused, and another player's session reads exactly like one that does not exist, so nothing
about it leaks. A studio playtest has no published version to start again from: creating is
refused there, and playtests are never listed (the session list page does the same).

Decisions the seed leaves open, taken here:

* ``worldId`` is the snapshot's ``worldId`` (the world definition's id); the world's database id
  is accepted too.
* ``createSession`` starts a new session of the *same published version* (not a newer one), like
  the start page, with the current session's mode, persona (or the persona it was started with),
  game-master character and model override; a replayed demo's session makes an offline one.
* ``getBranchContext()`` answers ``{sessionId, parentSessionId, branchedFromMessageId}``: the
  session this one was branched from and the message it was branched at (both null otherwise).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Count
from django.urls import reverse
from django.utils.translation import gettext

from play import gm, sessions
from play.errors import PlayError
from play.models import Session


def require_session_apis(session: Session) -> None:
    """Refuse a guest preview: it has no account to keep sessions, models or pins in."""
    if session.owner_id is None:
        message = gettext("A guest preview cannot use this; sign in to keep your sessions.")
        raise PlayError(message, field="capabilities")


def _check_world(session: Session, world_id: Any) -> None:
    asked = str(world_id if world_id is not None else "")
    own = {str(session.world_id)} if session.world_id is not None else set()
    own.add(sessions.world_of(session).id)
    if not asked or asked not in own:
        message = gettext("Only this world's sessions can be reached from its UI.")
        raise PlayError(message, field="worldId")


def _own_sessions(session: Session) -> Any:
    """The player's published-world sessions of this session's world."""
    if session.world_id is None:
        return Session.objects.none()
    return sessions.sessions_of(session.owner, session.world_id).filter(world_version__isnull=False)


def session_item(row: Session) -> dict[str, Any]:
    return {
        "id": str(row.pk),
        "title": row.title,
        "updatedAt": row.updated_at.isoformat(),
        "messageCount": int(getattr(row, "message_count", 0)),
    }


def list_sessions(session: Session, world_id: Any) -> list[dict[str, Any]]:
    """``listSessions(worldId)``: newest first, as the session list page shows them."""
    require_session_apis(session)
    _check_world(session, world_id)
    rows = _own_sessions(session).annotate(message_count=Count("messages"))
    return [session_item(row) for row in rows]


def create_session(session: Session, world_id: Any) -> Session:
    """``createSession(worldId)``: a new session of the same published version."""
    require_session_apis(session)
    _check_world(session, world_id)
    version = session.world_version
    if version is None:
        message = gettext("A playtest cannot start another session; publish the world first.")
        raise PlayError(message, field="worldId")
    persona_data = None
    if session.persona is None and session.persona_data:
        persona_data = dict(session.persona_data)
    created = sessions.start_session(
        session.owner,
        version,
        persona=session.persona,
        mode="offline" if session.mode == "replay" else session.mode,
        model=session.model,
        persona_data=persona_data,
    )
    if session.character_id:
        gm.set_character(created, session.character_id)
    if session.provider_preference:
        created.provider_preference = session.provider_preference
        created.save(update_fields=["provider_preference"])
    return created


def restart_chat(session: Session) -> Session:
    """``restartChat()``: a new session of the same world; the page then goes to it."""
    require_session_apis(session)
    return create_session(session, session.world_id)


def delete_session(session: Session, target_id: Any) -> bool:
    """``deleteSession(id)``: one of the player's own sessions of this world; True when it was
    the current one (the page then goes to the session list)."""
    require_session_apis(session)
    try:
        pk = uuid.UUID(str(target_id))
    except ValueError:
        pk = None
    target = _own_sessions(session).filter(pk=pk).first() if pk else None
    if target is None:
        message = gettext("No session of yours in this world has that id.")
        raise PlayError(message, field="sessionId")
    current = bool(target.pk == session.pk)
    sessions.delete_session(target)
    return current


def branch_context(session: Session) -> dict[str, Any]:
    """``getBranchContext()``: where this session was branched from, if it was."""
    require_session_apis(session)
    message = session.branched_from
    return {
        "sessionId": str(session.pk),
        "parentSessionId": str(message.session_id) if message is not None else None,
        "branchedFromMessageId": message.pk if message is not None else None,
    }


def _play_url(session: Session) -> str:
    return reverse("play:session", args=[session.pk])


def answer(session: Session, body: dict[str, Any]) -> Any:
    """One ``POST ui/sessions/`` request: ``{"action", "worldId"?, "sessionId"?}``."""
    action = body.get("action")
    if action == "list":
        return {"sessions": list_sessions(session, body.get("worldId"))}
    if action in ("create", "restart"):
        if action == "create":
            created = create_session(session, body.get("worldId"))
        else:
            created = restart_chat(session)
        return {"id": str(created.pk), "url": _play_url(created)}
    if action == "delete":
        current = delete_session(session, body.get("sessionId"))
        return {"current": current, "url": reverse("play:session_list") if current else None}
    if action == "branch":
        return branch_context(session)
    raise PlayError(gettext("Unknown session action."), field="action")
