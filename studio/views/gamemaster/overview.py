"""The game master's overview: turn it on or off, its settings and clock, the location graph,
the linter's problems with links to their fields, and the raw JSON of the whole block."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from engine.world import WorldValidationError
from studio.access import get_world_for_user
from studio.forms.gamemaster import Catalog, RawBlockForm, SettingsForm
from studio.gamemaster import (
    KEY,
    SINGLES,
    disable_game_master,
    enable_game_master,
    game_master_data,
    game_master_problems,
    records,
    save_game_master,
    save_singles,
)
from studio.gamemaster_graph import location_graph
from studio.models import World
from studio.views.common import AuthedRequest, changed, posted, render_page
from studio.views.gamemaster.nouns import NOUNS, problem_links

TEMPLATE = "studio/gamemaster_overview.html"


def overview_page(
    request: AuthedRequest, world: World, form: Any = None, **extra: Any
) -> HttpResponse:
    block = game_master_data(world)
    if block is not None and form is None:
        form = SettingsForm(catalog=Catalog(), record=block)
    context = {
        **extra,
        "world": world,
        "gm_block": block,
        "form": form,
        "nouns": NOUNS,
        "counts": [(n, len(records(block, n.slug))) for n in NOUNS],
        "graph": location_graph((block or {}).get("locations") or []),
        "problems": problem_links(world.pk, block, game_master_problems(world)),
        "section": "gm",
        "gm_tab": "overview",
    }
    return render_page(request, TEMPLATE, context, partial="workspace")


def _done(request: AuthedRequest, world: World, note: str) -> HttpResponse:
    if not request.htmx:
        messages.success(request, note)
        return redirect("studio:gm", world.pk)
    return changed(overview_page(request, world, note=note))


@login_required
@require_http_methods(["GET", "POST"])
def gm_overview(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    if game_master_data(world) is None:
        return overview_page(request, world)
    form = SettingsForm(posted(request), catalog=Catalog())
    refused: list[str] = []
    if request.method == "POST" and form.is_valid():
        data = {k: v for k, v in form.to_data().items() if k in SINGLES}
        try:
            save_singles(world, data)
            return _done(request, world, _("Settings saved."))
        except WorldValidationError as exc:
            refused = form.add_engine_errors(exc.errors, f"{KEY}.")
    return overview_page(
        request, world, form if request.method == "POST" else None, refused=refused
    )


@login_required
@require_POST
def gm_enable(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    enable_game_master(world)
    return _done(request, world, _("Game master on: add locations, people and things."))


@login_required
@require_POST
def gm_disable(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    disable_game_master(world)
    return _done(request, world, _("Game master off: the world plays as a plain world."))


def json_page(
    request: AuthedRequest, world: World, form: RawBlockForm, note: str = ""
) -> HttpResponse:
    context = {"world": world, "raw_form": form, "nouns": NOUNS, "raw": True, "note": note}
    return render_page(
        request, TEMPLATE, {**context, "section": "gm", "gm_tab": "json"}, partial="workspace"
    )


@login_required
@require_http_methods(["GET", "POST"])
def gm_json(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = RawBlockForm(posted(request), initial={"block": game_master_data(world) or {}})
    if request.method == "POST" and form.is_valid():
        try:
            save_game_master(world, form.cleaned_data["block"])
        except WorldValidationError as exc:
            form.add_engine_errors(exc.errors)
        else:
            if not request.htmx:
                messages.success(request, _("Game master saved."))
                return redirect("studio:gm_json", world.pk)
            fresh = RawBlockForm(initial={"block": game_master_data(world)})
            return changed(json_page(request, world, fresh, _("Game master saved.")))
    return json_page(request, world, form)
