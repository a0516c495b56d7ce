"""The custom-UI editor's file verbs beyond create/save, and its live preview.

The preview is the play sandbox's own document (``play/sandbox.html`` under the same strict
CSP, ``play.views.sandbox.sandbox_csp``) built from the live draft instead of a session's
published version, so the creator sees exactly what players will get: the saved files on GET,
or (POST, a form the editor submits into the frame as the creator types) the files as typed,
checked like saved ones and saved nowhere. It is mounted under the
sandbox prefix (``/play/ui/draft/<world>/``, config/urls.py), the only path a page that frames
a custom UI lets frames load from (play/csp.py). The page that frames it answers the frame's
bridge with sample state (static/js/studio_ui.js); the document itself holds only the code.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_http_methods, require_POST

from engine.world import RootComponent, WorldValidationError
from play.services import BOOT, RUNTIME_SCRIPTS, sandbox_csp, ui_sources
from studio.access import get_world_for_user
from studio.models import World
from studio.uifiles import check_ui_path, unsaved_root
from studio.views.common import AuthedRequest, changed
from studio.views.ui import ui_page, world_file
from studio.worlds import rename_root_file, root_component_dict, update_root_component


def _done(request: AuthedRequest, world: World, note: str, pk: int | None = None) -> HttpResponse:
    """After a tree action: the page again (htmx) or a redirect with the note as a message."""
    if not request.htmx:
        messages.info(request, note)
        return redirect("studio:ui_file", world.pk, pk) if pk else redirect("studio:ui", world.pk)
    file = world.root_files.filter(pk=pk).first() if pk else None
    push = ("studio:ui_file", world.pk, pk) if pk else ("studio:ui", world.pk)
    return changed(ui_page(request, world, file=file, note=note), push=push)


@login_required
@require_POST
def ui_file_rename(request: AuthedRequest, world_id: int, pk: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    file = world_file(world, pk)
    path = request.POST.get("path", "").strip()
    try:
        if path != file.path:
            rename_root_file(file, check_ui_path(path))
        note = _("File renamed.")
    except WorldValidationError as exc:
        note = "; ".join(error.partition(": ")[2] or error for error in exc.errors)
    return _done(request, world, note, file.pk)


@login_required
@require_POST
def ui_file_entry(request: AuthedRequest, world_id: int, pk: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    file = world_file(world, pk)
    update_root_component(world, {"entryFile": file.path})
    return _done(request, world, _("Entry file set to %(path)s.") % {"path": file.path}, file.pk)


@login_required
@require_http_methods(["GET", "POST"])
@never_cache
@xframe_options_sameorigin
def ui_preview(request: AuthedRequest, world_id: int) -> HttpResponse:
    """The saved draft (GET), or the files as the editor holds them, unsaved (POST)."""
    world = get_world_for_user(request.user, world_id, write=True)
    try:
        data = (
            unsaved_root(request.POST.get("files", ""), request.POST.get("entry", ""))
            if request.method == "POST"
            else root_component_dict(world)
        )
        root = RootComponent.model_validate(data) if data and data["files"] else None
    except (WorldValidationError, ValueError) as exc:
        return HttpResponseBadRequest(str(exc))
    if root is None:
        raise Http404("this world has no custom UI")
    return sandbox_document(request, root, world.name, world.language)


def sandbox_document(
    request: HttpRequest, root: RootComponent, title: str, language: str | None
) -> HttpResponse:
    """The sandbox page for ``root`` with the play sandbox's headers (play/views/sandbox.py)."""
    inline = BOOT
    context = {
        "runtime": [static(path) for path in RUNTIME_SCRIPTS],
        "inline": inline,
        "ui": ui_sources(root).as_data(),
        "world_name": title,
        "language": language or get_language() or "en",
    }
    response = render(request, "play/sandbox.html", context)
    response["Content-Security-Policy"] = sandbox_csp(request, inline)
    response["Referrer-Policy"] = "no-referrer"
    response["X-Content-Type-Options"] = "nosniff"
    response["X-DNS-Prefetch-Control"] = "off"
    return response
