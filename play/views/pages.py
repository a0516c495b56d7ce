"""The play page, the session list, starting a session and the guest preview (mission P1, P4)."""

from __future__ import annotations

import uuid

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from play import tables
from play.csp import embeds_sandbox
from play.errors import PlayError
from play.forms import SessionPersonaForm, StartSessionForm, character_form
from play.gm import set_character, version_characters
from play.history import recent_messages
from play.models import Session
from play.payloads import message_dict
from play.personas import set_session_persona
from play.playtests import start_guest_preview
from play.providers import quota_used_up
from play.quota import request_subjects
from play.sessions import delete_session, sessions_of, start_session, world_of
from play.status import status_of
from play.views.client import client_config
from play.views.common import guest_key, render_page, session_for
from studio.services import get_version_for_user, may_copy_version


@require_GET
@login_required
def session_list(request: HttpRequest) -> HttpResponse:
    sessions = (
        sessions_of(request.user)
        .filter(world_version__isnull=False)
        .annotate(message_count=Count("messages"))
    )
    return render(request, "play/session_list.html", {"sessions": sessions})


@require_GET
@embeds_sandbox
def session_page(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    session = session_for(request, session_id)
    form = None
    if request.user.is_authenticated and not session.is_playtest:
        form = SessionPersonaForm(user=request.user, initial={"persona": session.persona_id})
    return render(request, "play/session.html", _page_context(request, session, form))


@require_GET
def message_detail(request: HttpRequest, session_id: uuid.UUID, message_id: int) -> JsonResponse:
    """One whole message: the play page fetches a message the socket sent ``truncated``."""
    session = session_for(request, session_id)
    message = session.messages.filter(pk=message_id).first()
    if message is None:
        raise Http404("message not found")
    return JsonResponse(message_dict(message))


def _page_context(
    request: HttpRequest, session: Session, persona_form: SessionPersonaForm | None
) -> dict[str, object]:
    world = world_of(session)
    return {
        "session": session,
        "world": world,
        "chat_messages": recent_messages(session),
        "config": client_config(session, world),
        "persona_form": persona_form,
        "quota_exhausted": _quota_used_up(request, session),
        "recorded": session.mode == "record" and session.world_version_id is not None,
        "demo_downloadable": session.world_version is not None
        and may_copy_version(request.user, session.world_version),
        "world_owner": session.world is not None and session.world.owner_id == request.user.pk,
        "table": tables.page_info(session),
        "gm_status": status_of(session, world),  # a game-master character's sheet (issue 33 §4)
    }


def _quota_used_up(request: HttpRequest, session: Session) -> bool:
    """Whether this player's live actions are used up today (the page says until when)."""
    return quota_used_up(session, request_subjects(request), timezone.now())


@require_http_methods(["GET", "POST"])
def start(request: HttpRequest, version_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect("play:preview", version_id)
    version = get_version_for_user(request.user, version_id)
    characters = version_characters(version)
    form = StartSessionForm(request.POST or None, user=request.user, characters=characters)
    if request.method == "POST" and form.is_valid():
        try:
            session = start_session(
                request.user,
                version,
                persona=form.cleaned_data["persona"],
                mode=form.cleaned_data["mode"],
            )
            set_character(session, form.cleaned_data.get("character"))
        except PlayError as exc:
            form.add_error(None, exc.message)
        else:
            return redirect("play:session", session.pk)
    status = 400 if form.is_bound else 200
    return render(request, "play/start.html", {"version": version, "form": form}, status=status)


@require_http_methods(["GET", "POST"])
def preview(request: HttpRequest, version_id: int) -> HttpResponse:
    """Play a published world without an account; nothing outlives the browser session."""
    version = get_version_for_user(None, version_id)
    if request.user.is_authenticated:
        return redirect("play:start", version.pk)
    form = character_form(request.POST if request.method == "POST" else None, version)
    if request.method == "POST" and form.is_valid():
        request.session.set_expiry(0)  # the preview ends when the browser closes
        session = start_guest_preview(version, guest_key(request), timezone.now())
        set_character(session, form.cleaned_data.get("character"))
        return redirect("play:session", session.pk)
    return render(request, "play/preview.html", {"version": version, "form": form})


@require_POST
def delete(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    session = session_for(request, session_id)
    delete_session(session)
    if getattr(request, "htmx", False):
        return HttpResponse("")
    return redirect("play:session_list" if request.user.is_authenticated else "gallery")


@require_POST
@login_required
@embeds_sandbox
def change_persona(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    session = session_for(request, session_id)
    form = SessionPersonaForm(request.POST, user=request.user)
    if form.is_valid():
        session = set_session_persona(session, form.cleaned_data["persona"])
        if not getattr(request, "htmx", False):
            return redirect("play:session", session.pk)
    status = 200 if form.is_valid() else 400
    context = _page_context(request, session, form)
    return render_page(
        request, "play/session.html", context, partial="persona_picker", status=status
    )
