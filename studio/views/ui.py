"""The custom UI (``rootComponent``): its name, entry file and TSX files (seed 004 "自定义 UI").

One page edits them all: the file tree, the open file in a code editor, the live preview
(templates/studio/ui.html, static/js/studio_ui.js); tree verbs and the preview: ui_files.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from engine.world import WorldValidationError
from studio.access import get_world_for_user
from studio.editing import (
    duplicate_root_file,
    move_root_file,
    reorder_root_files,
    update_root_file,
)
from studio.forms import RootComponentForm, RootFileForm
from studio.forms.base import EngineForm
from studio.models import RootComponentFile, World
from studio.uifiles import (
    MAX_FILES,
    check_ui_path,
    check_ui_source,
    create_ui_file,
    file_tree,
    sample_state,
    server_problems,
)
from studio.views.common import AuthedRequest, apply, changed, order_from, posted, render_page
from studio.worlds import (
    delete_root_file,
    root_component_dict,
    update_root_component,
)

TEMPLATE = "studio/ui.html"


class _FileForm(RootFileForm, EngineForm):
    """Root file form whose service errors (``path: …``) land on its fields.

    The editor takes code and style files only, within the compiler's limits (studio.uifiles).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["source"].widget.attrs["data-code-editor"] = ""

    def clean_path(self) -> str:
        return _checked(check_ui_path, self.cleaned_data["path"])

    def clean_source(self) -> str:
        return _checked(check_ui_source, self.cleaned_data["source"])


class _EditForm(_FileForm):
    """Saving an open file: its path rides along hidden (renaming is the tree's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["path"].widget = forms.HiddenInput()


def _checked(check: Callable[[str], str], value: str) -> str:
    try:
        return check(value)
    except WorldValidationError as exc:
        raise forms.ValidationError([e.partition(": ")[2] for e in exc.errors]) from exc


def ui_page(
    request: AuthedRequest,
    world: World,
    *,
    file_form: Any = None,
    meta_form: Any = None,
    file: RootComponentFile | None = None,
    note: str = "",
) -> HttpResponse:
    root = root_component_dict(world)
    if file_form is None and file is not None:
        file_form = _EditForm(initial={"path": file.path, "source": file.source})
    new_form = _FileForm(initial={"path": "" if root else "index.tsx"})
    context = {
        **_editor_context(world, root),
        "file": file,
        "file_form": file_form or new_form,
        "new_form": new_form if file else (file_form or new_form),
        "meta_form": meta_form or RootComponentForm(initial_data=root),
        "note": note,
    }
    return render_page(request, TEMPLATE, context, partial="ui-workspace")


def _editor_context(world: World, root: dict[str, Any] | None) -> dict[str, Any]:
    """The tree, the server compiler's problems per file, and the preview's sample state."""
    files = list(world.root_files.all())
    return {
        "world": world,
        "section": "ui",
        "root": root,
        "files": files,
        "tree": file_tree(files),
        "problems": server_problems(root),
        "sources": {f.path: f.source for f in files},
        "sample": sample_state(world),
        "max_files": MAX_FILES,
    }


def world_file(world: World, pk: int) -> RootComponentFile:
    return get_object_or_404(RootComponentFile, world=world, pk=pk)


def _file_saved(request: AuthedRequest, world: World, file: RootComponentFile) -> HttpResponse:
    if not request.htmx:
        messages.success(request, _("File saved."))
        return redirect("studio:ui_file", world.pk, file.pk)
    response = ui_page(request, world, file=file, note=_("File saved."))
    return changed(response, push=("studio:ui_file", world.pk, file.pk))


@login_required
@require_GET
def ui_overview(request: AuthedRequest, world_id: int) -> HttpResponse:
    """The editor, with the entry file (or the first file) open."""
    world = get_world_for_user(request.user, world_id, write=True)
    files = world.root_files.all()
    file = files.filter(path=world.root_component_entry_file).first() or files.first()
    return ui_page(request, world, file=file)


@login_required
@require_POST
def ui_meta(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = RootComponentForm(request.POST)
    if form.is_valid() and apply(form, lambda data: update_root_component(world, data)) is not None:
        if not request.htmx:
            messages.success(request, _("Custom UI saved."))
            return redirect("studio:ui", world.pk)
        return changed(ui_page(request, world, note=_("Custom UI saved.")))
    return ui_page(request, world, meta_form=form)


@login_required
@require_POST
def ui_remove(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    update_root_component(world, None)
    if not request.htmx:
        messages.success(request, _("Custom UI removed."))
        return redirect("studio:ui", world.pk)
    return changed(ui_page(request, world, note=_("Custom UI removed.")))


@login_required
@require_POST
def ui_file_new(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = _FileForm(request.POST)
    if form.is_valid() and world.root_files.filter(path=form.cleaned_data["path"]).exists():
        form.add_error("path", _("A file with this path already exists."))
    if form.is_valid():
        data = form.cleaned_data
        file = apply(form, lambda _d: create_ui_file(world, data["path"], data["source"]))
        if file is not None:
            return _file_saved(request, world, file)
    return ui_page(request, world, file_form=form)


@login_required
@require_http_methods(["GET", "POST"])
def ui_file(request: AuthedRequest, world_id: int, pk: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    file = world_file(world, pk)
    form = _EditForm(posted(request), initial={"path": file.path, "source": file.source})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        saved = apply(form, lambda _d: update_root_file(file, data["path"], data["source"]))
        if saved is not None:
            return _file_saved(request, world, saved)  # ``file`` still holds the old source
    return ui_page(request, world, file_form=form, file=file)


@login_required
@require_POST
def ui_file_delete(request: AuthedRequest, world_id: int, pk: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    try:
        delete_root_file(world_file(world, pk))
        note = _("File deleted.")
    except WorldValidationError as exc:
        note = "; ".join(exc.errors)
    if not request.htmx:
        messages.info(request, note)
        return redirect("studio:ui", world.pk)
    return changed(ui_page(request, world, note=note), push=("studio:ui", world.pk))


@login_required
@require_POST
def ui_file_duplicate(request: AuthedRequest, world_id: int, pk: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    copy = duplicate_root_file(world_file(world, pk))
    return _file_saved(request, world, copy)


@login_required
@require_POST
def ui_file_move(request: AuthedRequest, world_id: int, pk: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    move_root_file(world_file(world, pk), "up" if request.POST.get("direction") == "up" else "down")
    if not request.htmx:
        return redirect("studio:ui", world.pk)
    return changed(ui_page(request, world))


@login_required
@require_POST
def ui_file_reorder(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    try:
        reorder_root_files(world, order_from(request))
    except WorldValidationError as exc:
        return HttpResponseBadRequest("; ".join(exc.errors))
    return changed(ui_page(request, world)) if request.htmx else redirect("studio:ui", world.pk)
