"""The studio playtest: a throwaway session on a snapshot of the draft, beside a state inspector.

The panel fills the world editor's ``playtest`` slot and also stands alone at its own URL, so the
reset button works as a plain POST too.
"""

from __future__ import annotations

import uuid

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET, require_POST

from engine.world import WorldValidationError
from play.csp import embeds_sandbox
from play.history import recent_messages
from play.models import Session
from play.playtests import current_playtest, reset_playtest
from play.sessions import state_of, world_of
from play.views.client import client_config
from play.views.common import AuthedRequest, render_page, session_for
from studio.models import World
from studio.services import get_world_for_user

TEMPLATE = "play/playtest.html"


@require_GET
@login_required
@embeds_sandbox
def playtest_panel(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    session = current_playtest(request.user, world)
    context = panel_context(world, session)
    return render_page(request, TEMPLATE, context, partial="panel")


@require_POST
@login_required
@embeds_sandbox
def playtest_reset(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    mode = "offline" if request.POST.get("mode") == "offline" else "live"
    try:
        session = reset_playtest(request.user, world, mode=mode)
    except WorldValidationError as exc:
        context = panel_context(world, current_playtest(request.user, world))
        context["errors"] = exc.errors
        return render_page(request, TEMPLATE, context, partial="panel", status=422)
    if not getattr(request, "htmx", False):
        return redirect("play:playtest", world.pk)
    return render_page(request, TEMPLATE, panel_context(world, session), partial="panel")


@require_GET
@login_required
def playtest_state(request: AuthedRequest, session_id: uuid.UUID) -> HttpResponse:
    """The whole engine state of a playtest (values, turn, fire counts, directives, toggles)."""
    session = session_for(request, session_id)
    if not session.is_playtest:
        raise Http404("not a playtest")
    context = {"session": session, "state": state_of(session).model_dump(mode="json")}
    return render_page(request, "play/playtest_state.html", context, partial="inspector")


def panel_context(world: World, session: Session | None) -> dict[str, object]:
    context: dict[str, object] = {"world_row": world, "session": session, "errors": []}
    if session is not None:
        definition = world_of(session)
        context.update(
            world=definition,
            chat_messages=recent_messages(session),
            config=client_config(session, definition),
        )
    return context
