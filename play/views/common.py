"""What every play view shares: finding the player's session, the guest key, partial renders."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from play.errors import NotFound, SessionForbidden, SessionNotFound
from play.models import Persona, Session
from play.personas import get_persona_for_user
from play.sessions import get_session_for_player, player_for


class AuthedRequest(HttpRequest):
    """A request behind ``login_required``: ``request.user`` is a real user."""

    user: User


def session_for(request: HttpRequest, session_id: Any) -> Session:
    """The session if this browser's user (or guest) owns it; 404 otherwise, so none leak."""
    player = player_for(request.user, request.session.session_key)
    try:
        return get_session_for_player(player, session_id)
    except (SessionNotFound, SessionForbidden):
        raise Http404("session not found") from None


def persona_for(request: HttpRequest, persona_id: int) -> Persona:
    """The user's own persona; 404 for anybody else's."""
    try:
        return get_persona_for_user(request.user, persona_id)
    except NotFound:
        raise Http404("persona not found") from None


def guest_key(request: HttpRequest) -> str:
    """The browser session's key, creating the session when there is none yet."""
    if not request.session.session_key:
        request.session.save()
    return str(request.session.session_key)


def render_page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    partial: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The whole page, or only ``partial`` of it when htmx asked."""
    name = f"{template}#{partial}" if partial and getattr(request, "htmx", False) else template
    return render(request, name, context, status=status)
