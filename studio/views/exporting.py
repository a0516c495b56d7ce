"""Downloads for SillyTavern from the world page: a character card (PNG/JSON, V2/V3), World Info."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from engine.interop import GATED_CHOICES
from engine.world import WorldValidationError
from studio.access import get_world_for_user
from studio.exporting import (
    CARD_FORMATS,
    CARD_SPECS,
    Download,
    card_download,
    worldinfo_download,
)
from studio.views.common import AuthedRequest


def attachment(download: Download) -> HttpResponse:
    response = HttpResponse(download.body, content_type=download.content_type)
    response["Content-Disposition"] = f'attachment; filename="{download.filename}"'
    return response


@login_required
@require_GET
def export_card(request: AuthedRequest, world_id: int) -> HttpResponse:
    """``?format=png|json&spec=v2|v3&gated=omit|disable`` (PNG, V2, disable when left out)."""
    world = get_world_for_user(request.user, world_id, write=True)
    fmt, spec = request.GET.get("format", "png"), request.GET.get("spec", "v2")
    gated = request.GET.get("gated", "disable")
    if fmt not in CARD_FORMATS or spec not in CARD_SPECS or gated not in GATED_CHOICES:
        return HttpResponseBadRequest(
            _("format must be png or json, spec v2 or v3, gated omit or disable")
        )
    try:
        return attachment(card_download(world, spec, fmt, gated))
    except WorldValidationError as exc:
        return _invalid(request, world.pk, exc)


@login_required
@require_GET
def export_worldinfo(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    try:
        return attachment(worldinfo_download(world))
    except WorldValidationError as exc:
        return _invalid(request, world.pk, exc)


def _invalid(request: AuthedRequest, world_id: int, exc: WorldValidationError) -> HttpResponse:
    note = _("The draft is invalid: %(errors)s") % {"errors": "; ".join(exc.errors)}
    messages.error(request, note)
    return redirect("studio:world", world_id)
