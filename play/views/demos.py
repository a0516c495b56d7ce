"""Demos in the browser (issue 11 §6, §8): record → download or publish → watch as a replay.

A session played in record mode can be downloaded as a signed demo file, and its world's
creator can publish it as the world's demo in one click (or upload a demo file in the studio).
Anybody who can play the world then watches it: a replay session at zero cost whose steps the
play page plays one by one (play.demos).
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from engine.jsonguard import JsonInputError, loads
from play import demos, recordings
from play.errors import PlayError
from play.models import Session, WorldDemo
from play.views.common import AuthedRequest, guest_key, session_for
from studio.services import get_world_for_user

MAX_DEMO_BYTES = 8 * 1024 * 1024


def _recorded(request: HttpRequest, session_id: uuid.UUID) -> Session:
    """The player's own session recorded from a published version; 404 for anything else."""
    session = session_for(request, session_id)
    if session.mode != "record" or session.world_version_id is None or session.world_id is None:
        raise Http404("no recording")
    return session


@require_GET
def download(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    session = _recorded(request, session_id)
    try:
        demo = recordings.export_recording(session, request.user)
    except PermissionDenied:
        context = {"world": session.world, "version": session.world_version}
        return render(request, "studio/secrets_kept.html", context, status=403)
    response = JsonResponse(demo, json_dumps_params={"ensure_ascii": False})
    name = slugify(session.title) or "fabula"
    response["Content-Disposition"] = f'attachment; filename="{name}-demo.json"'
    return response


@require_POST
@login_required
def publish_session(request: AuthedRequest, session_id: uuid.UUID) -> HttpResponse:
    """Publish a recording as its world's demo: only the world's creator may."""
    session = _recorded(request, session_id)
    assert session.world_id is not None
    world = get_world_for_user(request.user, session.world_id, write=True)
    demos.publish(world, recordings.export_recording(session, request.user), session.title)
    messages.success(request, _("Published as this world's demo."))
    return redirect("play:session", session.pk)


@require_POST
def watch(request: HttpRequest, world_id: int) -> HttpResponse:
    """Start watching a world's demo: a replay session of the viewer's own."""
    world = get_world_for_user(request.user, world_id)
    demo = demos.demo_of(world)
    if demo is None:
        raise Http404("this world has no demo")
    user = request.user if request.user.is_authenticated else None
    if user is None:
        request.session.set_expiry(0)  # like a guest preview: gone with the browser
    try:
        session = recordings.import_recording(user, demo.data, guest_key=guest_key(request))
    except PlayError as exc:
        messages.error(request, exc.message)
        return redirect("world_page", world.pk)
    return redirect("play:session", session.pk)


@require_POST
@login_required
def upload(request: AuthedRequest, world_id: int) -> HttpResponse:
    """Publish a downloaded demo file as the world's demo (the studio's Demo panel)."""
    world = get_world_for_user(request.user, world_id, write=True)
    back = reverse("studio:world", args=[world.pk]) + "#demo"
    try:
        demo = _read_demo(request)
        version = recordings.verified_demo(request.user, demo)
        if version.world_id != world.pk:
            raise PlayError(_("This demo was recorded on another world."), field="world")
    except PlayError as exc:
        where = f" ({exc.field})" if exc.field else ""
        messages.error(request, _("The demo was not published: %s") % (exc.message + where))
        return redirect(back)
    demos.publish(world, demo, version.name)
    messages.success(request, _("Published as this world's demo."))
    return redirect(back)


def _read_demo(request: HttpRequest) -> dict[str, object]:
    upload = request.FILES.get("demo")
    if upload is None:
        raise PlayError(_("Choose a demo file."), field="demo")
    if upload.size is None or upload.size > MAX_DEMO_BYTES:
        raise PlayError(_("A demo file is at most 8 MB."), field="demo")
    try:
        data = loads(upload.read())
    except JsonInputError as exc:
        raise PlayError(_("This file is not JSON: %s") % exc, field="demo") from None
    if not isinstance(data, dict):
        raise PlayError(_("This file is not a Fabula demo."), field="format")
    return data


@require_POST
@login_required
def remove(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    WorldDemo.objects.filter(world=world).delete()
    messages.success(request, _("The demo was removed."))
    return redirect(reverse("studio:world", args=[world.pk]) + "#demo")
