"""The Portraits page: the world's portrait and its game-master characters' (issue 16 §4).

Only the world's owner uploads or removes them (``get_world_for_user(..., write=True)``: 404 for
a stranger's draft, 403 on somebody else's published world). Every form posts plainly and
redirects; under htmx the page's ``portraits`` partial comes back instead.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from studio.access import get_world_for_user
from studio.forms.portraits import WorldPortraitForm
from studio.models import World
from studio.portraits import (
    PortraitError,
    character_portraits,
    clear_character_portrait,
    clear_world_portrait,
    face_info,
    set_character_portrait,
    set_world_portrait,
    world_characters,
)
from studio.views.common import AuthedRequest, render_page

TEMPLATE = "studio/portraits.html"


@login_required
@require_GET
def portrait_page(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    return _page(request, world)


@login_required
@require_POST
def portrait_upload(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    key = _character_key(request, world)
    form = WorldPortraitForm(request.POST, request.FILES, auto_id=_auto_id(key))
    if form.is_valid():
        try:
            if key:
                set_character_portrait(world, key, form.cleaned_data["image"], form.crop())
            else:
                set_world_portrait(world, form.cleaned_data["image"], form.crop())
        except PortraitError as exc:
            form.add_error("image" if exc.field == "image" else None, exc.message)
        else:
            return _done(request, world, _("Portrait saved."))
    return _page(request, world, {key: form}, status=400)


@login_required
@require_POST
def portrait_remove(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    key = _character_key(request, world)
    if key:
        clear_character_portrait(world, key)
    else:
        clear_world_portrait(world)
    return _done(request, world, _("Portrait removed."))


def _character_key(request: AuthedRequest, world: World) -> str:
    """The posted character id ("" for the world itself); 404 for one the world does not have."""
    key = request.POST.get("character", "")
    if key and key not in dict(world_characters(world)):
        raise Http404("no such character")
    return key


def _done(request: AuthedRequest, world: World, message: str) -> HttpResponse:
    if not request.htmx:
        messages.success(request, message)
        return redirect("studio:portraits", world.pk)
    return _page(request, world)


def _page(
    request: AuthedRequest,
    world: World,
    bound: dict[str, WorldPortraitForm] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {"world": world, "section": "portraits", "subjects": _subjects(world, bound or {})}
    return render_page(request, TEMPLATE, context, partial="portraits", status=status)


def _subjects(world: World, bound: dict[str, WorldPortraitForm]) -> list[dict[str, Any]]:
    """The world, then each player character: its face, whether it has a portrait, its form."""
    stored = character_portraits(world)
    rows = [("", world.name, world.portrait.name or "")]
    rows += [(key, name, stored.get(key, "")) for key, name in world_characters(world)]
    return [
        {
            "key": key,
            "name": name,
            "face": face_info(portrait, name),
            "has_portrait": bool(portrait),
            "form": bound.get(key)
            or WorldPortraitForm(initial={"character": key}, auto_id=_auto_id(key)),
        }
        for key, name, portrait in rows
    ]


def _auto_id(key: str) -> str:
    """Distinct element ids for the forms of one page (one per world or character)."""
    return f"id_portrait-{key}_%s" if key else "id_portrait_%s"
