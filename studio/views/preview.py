"""The live prompt preview beside the editor (seed 004 "提示词组装顺序", 13 steps)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from play.services import playtest_memory
from studio.access import get_world_for_user
from studio.forms import EntryForm, PreviewForm
from studio.live import DraftEntry, preview_prompt
from studio.models import World
from studio.scenes import scene_choices, scene_preview
from studio.views.common import AuthedRequest

RESULT = "studio/partials/preview_result.html"


def draft_from(request: AuthedRequest, world: World) -> tuple[DraftEntry | None, list[str]]:
    """The entry being typed in the editor (posted along via hx-include), if any."""
    if request.POST.get("draft_kind") != "entries":
        return None, []
    # An untouched "new entry" form is not a draft yet.
    typed = ("name", "content", "keywords", "id")
    if not request.POST.get("draft_key") and not any(request.POST.get(f) for f in typed):
        return None, []
    form = EntryForm(world, data=request.POST, draft=True)
    if not form.is_valid():
        return None, [
            f"{name}: {' '.join(map(str, errors))}" for name, errors in form.errors.items()
        ]
    return DraftEntry(key=request.POST.get("draft_key") or None, data=form.to_data()), []


@login_required
@require_POST
def prompt_preview(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = PreviewForm(request.POST)
    form.offer_scene(*scene_choices(world))
    context = {"world": world, "preview_form": form, "preview": None, "section": "preview"}
    if form.is_valid():
        draft, errors = draft_from(request, world)
        data = form.cleaned_data
        memory = playtest_memory(request.user, world) if data["playtest_memory"] else ""
        preview = preview_prompt(
            world,
            chat=data["chat"],
            values=data["state"],
            persona=form.persona(),
            draft=draft,
            memory=memory,
        )
        preview.draft_errors += errors
        where = (data["scene_character"], data["scene_location"])
        preview.scene = scene_preview(world, *where, preview.state.values)
        context["preview"] = preview
    template = RESULT if request.htmx else "studio/preview.html"
    return render(request, template, context)
