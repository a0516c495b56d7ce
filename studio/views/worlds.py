"""My worlds: list, create, the draft's overview (header form), delete."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from studio.access import get_world_for_user
from studio.exporting import card_gated_names
from studio.forms import NewWorldForm, PublishForm, WorldForm
from studio.gamemaster import has_game_master
from studio.models import World
from studio.views.common import AuthedRequest, apply, changed, posted, render_page
from studio.welcome import demo_worlds
from studio.worlds import create_world, delete_world, update_world


@login_required
@require_GET
def world_list(request: AuthedRequest) -> HttpResponse:
    worlds = World.objects.filter(owner=request.user).select_related("published_version")
    # Lazy: only a creator with no world yet (just signed up) sees the demos (issue 35 §8).
    context = {"worlds": worlds, "form": NewWorldForm(), "demos": demo_worlds()}
    return render_page(request, "studio/world_list.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def world_create(request: AuthedRequest) -> HttpResponse:
    form = NewWorldForm(posted(request))
    if request.method == "POST" and form.is_valid():
        data = {**form.to_data(), "author": request.user.get_username()}
        world = apply(form, lambda _d: create_world(request.user, data))
        if world is not None:
            messages.success(request, _("World created."))
            return redirect("studio:world", world.pk)
    return render_page(request, "studio/world_new.html", {"form": form}, partial="new-world")


def overview(
    request: AuthedRequest, world: World, form: WorldForm, publish_form: PublishForm | None = None
) -> HttpResponse:
    context = {
        "world": world,
        "form": form,
        "publish_form": publish_form or PublishForm(game_master=has_game_master(world)),
        "versions": world.versions.all(),
        "section": "world",
        "card_gated": [] if request.htmx else card_gated_names(world),  # the export panel's
    }
    return render_page(request, "studio/world.html", context, partial="world-form")


@login_required
@require_http_methods(["GET", "POST"])
def world_detail(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = WorldForm(posted(request), initial_data=header_initial(world))
    saving = request.method == "POST" and form.is_valid()
    if saving and apply(form, lambda data: update_world(world, data)) is not None:
        if not request.htmx:
            messages.success(request, _("Saved."))
            return redirect("studio:world", world.pk)
        return changed(overview(request, world, WorldForm(initial_data=header_initial(world))))
    return overview(request, world, form)


def header_initial(world: World) -> dict[str, object]:
    return {
        "name": world.name,
        "description": world.description,
        "author": world.author,
        "language": world.language or "",
        "editorMode": world.editor_mode,
    }


@login_required
@require_POST
def world_delete(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    delete_world(world)
    messages.success(request, _("World deleted."))
    return redirect("studio:world_list")
