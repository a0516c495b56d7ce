"""A shared table's pages: the host's invitation, joining with a character, leaving (issue 12 §4);
the host's new link and removing a player (issue 32 §10).

Thin: play.tables and play.table_host decide; these pages check who asks and tell the seated
sockets who sits now. The host's actions answer htmx with the fragment they change, a plain
POST with a redirect to his game.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from play import table_host, table_relay, tables
from play.errors import NotFound, PlayError
from play.models import Table
from play.sessions import world_of
from play.views.common import session_for

PANEL = "play/partials/table_panel.html"
TEXT = "text/plain; charset=utf-8"


@require_POST
@login_required
def invite(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """Open the host's table (once) and show the link to hand to the other players."""
    session = session_for(request, session_id)
    try:
        table = tables.open_table(session, request.user)
    except PlayError as exc:
        return render(request, "play/partials/invite.html", {"error": exc.message}, status=400)
    _tell_the_table(table)
    link = request.build_absolute_uri(reverse("play:join", args=[table.invite_token]))
    return render(request, "play/partials/invite.html", {"link": link})


@require_http_methods(["GET", "POST"])
@login_required
def join(request: HttpRequest, token: str) -> HttpResponse:
    table = _table(token)
    status = 200
    error = ""
    if tables.removed_from(table, request.user):
        error, status = gettext(tables.REMOVED), 403
    elif request.method == "POST":
        try:
            session = tables.join_table(request.user, table, request.POST.get("character", ""))
        except PlayError as exc:
            error, status = exc.message, 400
        else:
            _tell_the_table(table)
            return redirect("play:session", session.pk)
    context = {
        "table": table,
        "world": world_of(table.host),
        "players": tables.players(table),
        "characters": [] if status == 403 else tables.free_characters(table),
        "removed": status == 403,
        "error": error,
    }
    return render(request, "play/join.html", context, status=status)


@require_POST
@login_required
def leave(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    session = session_for(request, session_id)
    try:
        table = tables.leave_table(session)
    except PlayError as exc:
        return HttpResponse(exc.message, status=400, content_type=TEXT)
    _tell_the_table(table)
    return redirect("play:session_list")


@require_POST
@login_required
def rotate_invite(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """A new invitation link: the old one stops working at once."""
    session = session_for(request, session_id)
    try:
        table = table_host.rotate_invite(session, request.user)
    except PlayError as exc:
        return render(
            request, "play/partials/invite.html", {"error": exc.message}, status=exc.status
        )
    if not getattr(request, "htmx", False):
        return redirect("play:session", session.pk)
    link = request.build_absolute_uri(reverse("play:join", args=[table.invite_token]))
    return render(request, "play/partials/invite.html", {"link": link, "new": True})


@require_POST
@login_required
def remove_player(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """The host removes a player: his sockets close, his page says so, he may not sit again."""
    session = session_for(request, session_id)
    character = str(request.POST.get("character", ""))
    try:
        table, removed = table_host.remove_player(session, request.user, character)
    except PlayError as exc:
        if not getattr(request, "htmx", False) or exc.status == 403:
            return HttpResponse(exc.message, status=exc.status, content_type=TEXT)
        return _panel(request, session, exc.message, exc.status)
    table_relay.remove_now(removed)
    _tell_the_table(table)
    if not getattr(request, "htmx", False):
        return redirect("play:session", session.pk)
    return _panel(request, session)


def _panel(request: HttpRequest, session: Any, error: str = "", status: int = 200) -> HttpResponse:
    context = {"session": session, "table": tables.page_info(session), "table_error": error}
    return render(request, PANEL, context, status=status)


def _table(token: str) -> Table:
    try:
        return tables.table_by_token(token)
    except NotFound:
        raise Http404("invitation not found") from None


def _tell_the_table(table: Table) -> None:
    table_relay.send_now(
        table_relay.to_all(tables.table_sessions(table), tables.players_frame(table))
    )
