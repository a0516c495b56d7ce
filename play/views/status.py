"""The Status panel of a game-master session, as an htmx partial (play.status)."""

from __future__ import annotations

import uuid

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from play.status import status_of
from play.views.common import session_for


@require_GET
@never_cache
def status_panel(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """The character's HP, money, items, journal and whom and where he knows (a plain
    world's variables are drawn by play.js from the ``state`` frames instead)."""
    session = session_for(request, session_id)
    status = status_of(session)
    if status is None:
        raise Http404("not a game-master session")
    return render(request, "play/partials/gm_status.html", {"status": status})
