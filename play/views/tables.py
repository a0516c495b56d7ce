"""A shared table's pages: the host's invitation, joining with a character, leaving (issue 12 §4).

Thin: play.tables decides; these pages check who asks and tell the seated sockets who sits now.
"""

from __future__ import annotations

import uuid

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from play import table_relay, tables
from play.errors import NotFound, PlayError
from play.models import Table
from play.sessions import world_of
from play.views.common import session_for


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
    if request.method == "POST":
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
        "characters": tables.free_characters(table),
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
        return HttpResponse(exc.message, status=400, content_type="text/plain; charset=utf-8")
    _tell_the_table(table)
    return redirect("play:session_list")


def _table(token: str) -> Table:
    try:
        return tables.table_by_token(token)
    except NotFound:
        raise Http404("invitation not found") from None


def _tell_the_table(table: Table) -> None:
    table_relay.send_now(
        table_relay.to_all(tables.table_sessions(table), tables.players_frame(table))
    )
