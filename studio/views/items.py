"""The generic views of every world list: list, create, edit, delete, duplicate, reorder.

Each kind (studio.views.entries.ENTRIES…) is passed in by the URLconf. A full request gets the
editor page; an htmx request gets the ``workspace`` partial (list + form) or, when it targets
the list (search box, drag and drop, up/down), only the ``item-list`` partial. Every POST also
works without JavaScript: it redirects.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from engine.world import WorldValidationError
from studio.access import get_world_for_user
from studio.editing import move_by_one, reorder_items
from studio.models import World, WorldItem
from studio.views.common import (
    AuthedRequest,
    apply,
    changed,
    int_or_none,
    order_from,
    posted,
    render_page,
)
from studio.views.kinds import Kind
from studio.worlds import create_item, delete_item, duplicate_item, update_item

TEMPLATE = "studio/items.html"


def workspace(
    request: AuthedRequest,
    world: World,
    kind: Kind,
    form: Any,
    row: WorldItem | None = None,
    note: str = "",
    **extra: Any,
) -> HttpResponse:
    rows, filters = kind.list_filter(request, world, kind.model.objects.filter(world=world))
    context = {
        **kind.extra_context(world),
        **extra,
        "world": world,
        "kind": kind,
        "items": [(r, kind.describe(r)) for r in rows],
        "filters": filters,
        "form": form,
        "row": row,
        "note": note,
        "section": kind.slug,
    }
    partial = "item-list" if request.htmx.target == "item-list" else "workspace"
    return render_page(request, TEMPLATE, context, partial=partial)


def _get_row(kind: Kind, world: World, pk: int) -> WorldItem:
    return get_object_or_404(kind.model, world=world, pk=pk)


def saved(
    request: AuthedRequest, world: World, kind: Kind, row: WorldItem, note: str
) -> HttpResponse:
    """After a write: the workspace on the saved item (htmx), or a redirect to it."""
    if not request.htmx:
        messages.success(request, note)
        return redirect(kind.names["edit"], world.pk, row.pk)
    response = workspace(request, world, kind, kind.make_form(world, row=row), row, note)
    return changed(response, push=(kind.names["edit"], world.pk, row.pk))


@login_required
@require_GET
def item_list(request: AuthedRequest, world_id: int, kind: Kind) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    return workspace(request, world, kind, kind.make_form(world))


@login_required
@require_http_methods(["GET", "POST"])
def item_create(request: AuthedRequest, world_id: int, kind: Kind) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = kind.make_form(world, data=posted(request))
    if request.method == "POST" and form.is_valid():
        row = apply(form, lambda data: create_item(world, kind.model, data))
        if row is not None:
            return saved(request, world, kind, row, _("Created."))
    return workspace(request, world, kind, form)


@login_required
@require_http_methods(["GET", "POST"])
def item_edit(request: AuthedRequest, world_id: int, pk: int, kind: Kind) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    row = _get_row(kind, world, pk)
    form = kind.make_form(world, data=posted(request), row=row)
    if request.method == "POST" and form.is_valid():
        updated = apply(form, lambda data: update_item(row, data))
        if updated is not None:
            return saved(request, world, kind, updated, _("Saved."))
    return workspace(request, world, kind, form, row)


@login_required
@require_POST
def item_delete(request: AuthedRequest, world_id: int, pk: int, kind: Kind) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    row = _get_row(kind, world, pk)
    try:
        delete_item(row)
    except WorldValidationError as exc:  # a variable that conditions still name
        form = kind.make_form(world, row=row)
        response = workspace(request, world, kind, form, row, error="; ".join(exc.errors))
        response.status_code = 409 if not request.htmx else 200
        return response
    if not request.htmx:
        messages.success(request, _("Deleted."))
        return redirect(kind.names["list"], world.pk)
    response = workspace(request, world, kind, kind.make_form(world), note=_("Deleted."))
    return changed(response, push=(kind.names["list"], world.pk))


@login_required
@require_POST
def item_duplicate(request: AuthedRequest, world_id: int, pk: int, kind: Kind) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    copy = duplicate_item(_get_row(kind, world, pk))
    return saved(request, world, kind, copy, _("Duplicated."))


@login_required
@require_POST
def item_move(request: AuthedRequest, world_id: int, pk: int, kind: Kind) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    row = _get_row(kind, world, pk)
    move_by_one(kind.model, row, "up" if request.POST.get("direction") == "up" else "down")
    return _after_reorder(request, world, kind)


@login_required
@require_POST
def item_reorder(request: AuthedRequest, world_id: int, kind: Kind) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    try:
        reorder_items(world, kind.model, order_from(request))
    except WorldValidationError as exc:
        return HttpResponseBadRequest("; ".join(exc.errors))
    return _after_reorder(request, world, kind)


def _after_reorder(request: AuthedRequest, world: World, kind: Kind) -> HttpResponse:
    """The list again (htmx keeps the open form as it is), or back to the page without JS."""
    current = int_or_none(request.POST.get("current"))
    if not request.htmx:
        if current:
            return redirect(kind.names["edit"], world.pk, current)
        return redirect(kind.names["list"], world.pk)
    row = kind.model.objects.filter(world=world, pk=current).first() if current else None
    return changed(workspace(request, world, kind, None, row))
