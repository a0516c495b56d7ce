"""Publish, unpublish, fork, and export JSON from a draft or a published version."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from engine.world import WorldValidationError
from studio.access import get_version_for_user, get_world_for_user, may_copy_version
from studio.forms import PublishForm, WorldForm
from studio.gamemaster import has_game_master
from studio.messages import translated_line
from studio.models import WorldVersion
from studio.publishing import fork_world, publish_world, unpublish_world
from studio.views.common import AuthedRequest, Request, changed
from studio.views.worlds import header_initial, overview
from studio.worlds import export_world_json


@login_required
@require_POST
def publish(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = PublishForm(request.POST, game_master=has_game_master(world))
    if form.is_valid():
        try:
            version = publish_world(
                world,
                form.cleaned_data["changelog"],
                remixable_secrets=form.cleaned_data.get("remixable_secrets", False),
            )
        except WorldValidationError as exc:
            for error in exc.errors:
                form.add_error(None, translated_line(error))
        else:
            note = _("Published version %(number)s.") % {"number": version.number}
            if not request.htmx:
                messages.success(request, note)
                return redirect("studio:world", world.pk)
            return changed(overview(request, world, WorldForm(initial_data=header_initial(world))))
    return overview(request, world, WorldForm(initial_data=header_initial(world)), form)


@login_required
@require_POST
def unpublish(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    unpublish_world(world)
    if not request.htmx:
        messages.success(request, _("The world is no longer listed in the gallery."))
        return redirect("studio:world", world.pk)
    return changed(overview(request, world, WorldForm(initial_data=header_initial(world))))


@login_required
@require_POST
def fork(request: AuthedRequest, version_id: int) -> HttpResponse:
    version = get_version_for_user(request.user, version_id)
    if not may_copy_version(request.user, version):
        return secrets_kept(request, version)
    world = fork_world(request.user, version, request.POST.get("name", ""))
    messages.success(request, _("Forked into your drafts: %(name)s.") % {"name": world.name})
    return redirect("studio:world", world.pk)


def _download(data: dict[str, object], name: str) -> HttpResponse:
    body = json.dumps(data, indent=2, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    filename = f"{slugify(name) or 'world'}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_GET
def export_draft(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    try:
        return _download(export_world_json(world), world.name)
    except WorldValidationError as exc:
        messages.error(
            request,
            _("The draft is invalid: %(errors)s")
            % {"errors": "; ".join(map(translated_line, exc.errors))},
        )
        return redirect("studio:world", world.pk)


@require_GET
def export_version(request: Request, version_id: int) -> HttpResponse:
    version = get_version_for_user(request.user, version_id)
    if not may_copy_version(request.user, version):
        return secrets_kept(request, version)
    return _download(version.definition, f"{version.name}-v{version.number}")


def secrets_kept(request: Request, version: WorldVersion) -> HttpResponse:
    """403: a game-master world is played, not copied, unless its creator published the version
    as remixable with its secrets (``studio.access.may_copy_version``)."""
    context = {"world": version.world, "version": version}
    return render(request, "studio/secrets_kept.html", context, status=403)
