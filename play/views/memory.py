"""The session memory in the play page (issue 13 §1): read it, edit it, end the session.

The panel's body is an htmx fragment; every POST also works as a plain POST → redirect, and a
plain GET gives a page of its own. Only the session's player (or, in a playtest, its creator)
reaches it: ``session_for`` answers 404 to everyone else.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from play.errors import PlayError
from play.memory import end_session, save_memory
from play.models import Session
from play.sessions import state_of
from play.views.common import session_for

BODY = "play/partials/memory_body.html"


@require_http_methods(["GET", "POST"])
def memory_panel(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    session = session_for(request, session_id)
    if request.method == "GET":
        editing = request.GET.get("edit") == "1"
        return _render(request, session, editing=editing)
    text = str(request.POST.get("memory", ""))
    try:
        session = save_memory(session, text)
    except PlayError as exc:
        return _render(
            request, session, editing=True, error=exc.message, text=text, status=exc.status
        )
    if not getattr(request, "htmx", False):
        return redirect("play:session", session.pk)
    return _render(request, session)


@require_POST
def memory_end(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """Summarise what the memory does not hold yet; the player may play on afterwards."""
    session = session_for(request, session_id)
    end_session(session)
    if not getattr(request, "htmx", False):
        return redirect("play:session", session.pk)
    session.refresh_from_db()
    return _render(request, session, ended=True)


def _render(
    request: HttpRequest,
    session: Session,
    *,
    editing: bool = False,
    error: str = "",
    text: str | None = None,
    ended: bool = False,
    status: int = 200,
) -> HttpResponse:
    memory = state_of(session).session_memory if text is None else text
    context: dict[str, Any] = {
        "session": session,
        "editing": editing,
        "error": error,
        "memory_text": memory,
        "ended": ended,
    }
    template = BODY if getattr(request, "htmx", False) else "play/memory.html"
    return render(request, template, context, status=status)
