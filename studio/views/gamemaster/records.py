"""The game master's lists (locations, items, NPCs…): list, create, edit, delete one record.

Each noun (``studio.views.gamemaster.nouns``) is passed in by the URLconf, as for the world's
own lists. A full request gets the page; an htmx request gets the ``workspace`` partial (list,
graph, form). Every POST also works without JavaScript: it redirects. A save the engine refuses
(a bad value, or a reference the linter would reject) re-renders the form with each
``path: message`` on its field, and the lines no field takes above the form.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from engine.world import WorldValidationError
from studio.access import get_world_for_user
from studio.forms.gamemaster import Catalog, GMForm
from studio.gamemaster import (
    KEY,
    RecordNotFound,
    delete_record,
    find_record,
    game_master_data,
    game_master_problems,
    records,
    save_record,
    variable_ids,
)
from studio.gamemaster_graph import location_graph
from studio.models import World
from studio.views.common import AuthedRequest, changed, posted, render_page
from studio.views.gamemaster.nouns import NOUNS, Noun, problem_links

TEMPLATE = "studio/gamemaster.html"


def make_form(world: World, noun: Noun, data: Any = None, record: Any = None) -> GMForm:
    catalog = Catalog.of(game_master_data(world), variable_ids(world))
    if record is None and data is None:
        record = {}
    return noun.form(data, catalog=catalog, record=record)


def workspace(
    request: AuthedRequest,
    world: World,
    noun: Noun,
    form: GMForm,
    ref: str | None = None,
    **extra: Any,
) -> HttpResponse:
    block = game_master_data(world) or {}
    rows = records(block, noun.slug)
    context = {
        **extra,
        "world": world,
        "noun": noun,
        "nouns": NOUNS,
        "rows": [(noun.ref(r), noun.name_of(r), noun.describe(r)) for r in rows],
        "form": form,
        "ref": ref,
        "problems": problem_links(world.pk, block, game_master_problems(world)),
        "graph": location_graph(block.get("locations") or []) if noun.slug == "locations" else None,
        "section": "gm",
        "gm_tab": noun.slug,
    }
    return render_page(request, TEMPLATE, context, partial="workspace")


def _record(world: World, noun: Noun, ref: str) -> dict[str, Any]:
    try:
        return find_record(game_master_data(world), noun.slug, ref)[1]
    except RecordNotFound:
        raise Http404(f"no {noun.singular} '{ref}'") from None


def _save(
    form: GMForm, world: World, noun: Noun, ref: str | None
) -> tuple[dict[str, Any] | None, list[str]]:
    """Run the save; on refusal, put the engine's lines on the form and return the others."""
    try:
        return save_record(world, noun.slug, ref, form.to_data()), []
    except WorldValidationError as exc:
        index = _index(world, noun, ref)
        return None, form.add_engine_errors(exc.errors, f"{KEY}.{noun.slug}[{index}].")


def _index(world: World, noun: Noun, ref: str | None) -> int:
    rows = records(game_master_data(world), noun.slug)
    if ref is None:
        return len(rows)
    return next((i for i, r in enumerate(rows) if noun.ref(r) == ref), len(rows))


def saved(
    request: AuthedRequest, world: World, noun: Noun, record: dict[str, Any], note: str
) -> HttpResponse:
    """After a write: the workspace on the saved record (htmx), or a redirect to it."""
    ref = noun.ref(record)
    if not request.htmx:
        messages.success(request, note)
        return redirect(noun.names["edit"], world.pk, ref)
    form = make_form(world, noun, record=record)
    return changed(
        workspace(request, world, noun, form, ref, note=note),
        push=(noun.names["edit"], world.pk, ref),
    )


def _enabled(world: World) -> bool:
    return game_master_data(world) is not None


@login_required
@require_GET
def record_list(request: AuthedRequest, world_id: int, noun: Noun) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    if not _enabled(world):
        return redirect("studio:gm", world.pk)
    return workspace(request, world, noun, make_form(world, noun))


@login_required
@require_http_methods(["GET", "POST"])
def record_create(request: AuthedRequest, world_id: int, noun: Noun) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    if not _enabled(world):
        return redirect("studio:gm", world.pk)
    form = make_form(world, noun, data=posted(request))
    refused: list[str] = []
    if request.method == "POST" and form.is_valid():
        record, refused = _save(form, world, noun, None)
        if record is not None:
            return saved(request, world, noun, record, _("Created."))
    return workspace(request, world, noun, form, refused=refused)


@login_required
@require_http_methods(["GET", "POST"])
def record_edit(request: AuthedRequest, world_id: int, ref: str, noun: Noun) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    current = _record(world, noun, ref)
    form = make_form(
        world, noun, data=posted(request), record=None if request.method == "POST" else current
    )
    refused: list[str] = []
    if request.method == "POST" and form.is_valid():
        record, refused = _save(form, world, noun, ref)
        if record is not None:
            return saved(request, world, noun, record, _("Saved."))
    return workspace(request, world, noun, form, ref, refused=refused)


@login_required
@require_POST
def record_delete(request: AuthedRequest, world_id: int, ref: str, noun: Noun) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    current = _record(world, noun, ref)
    try:
        delete_record(world, noun.slug, ref)
    except WorldValidationError as exc:
        response = workspace(
            request, world, noun, make_form(world, noun, record=current), ref, refused=exc.errors
        )
        response.status_code = 200 if request.htmx else 409
        return response
    if not request.htmx:
        messages.success(request, _("Deleted."))
        return redirect(noun.names["list"], world.pk)
    response = workspace(request, world, noun, make_form(world, noun), note=_("Deleted."))
    return changed(response, push=(noun.names["list"], world.pk))
