"""The form ⇄ raw JSON switch of the structured editors (rules, reactions, entries, variables).

Picking the other side of an editor posts the whole form here; the side in use is read (rows
become JSON, or JSON becomes rows) and the editor comes back drawn on the side picked. Nothing is
saved. A problem on the side in use keeps the editor there, with the error on its field.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from studio.access import get_world_for_user
from studio.forms.structured import StructuredForm
from studio.models import World
from studio.views.common import AuthedRequest
from studio.views.items import workspace
from studio.views.kinds import Kind

STAYS_JSON = _("The form cannot show every field of this JSON, so it stays raw JSON.")


def switch_editor(kind: Kind, world: World, data: Any) -> Any:
    """The form drawn on the side ``data`` picks, filled from the side it was on before."""
    wanted = "json" if data.get("editor") == "json" else "form"
    data = data.copy()
    data["editor"] = "form" if wanted == "json" else "json"
    form = kind.make_form(world, data=data)
    logic = form.logic_data() if isinstance(form, StructuredForm) else None
    if logic is None:
        return form
    args: tuple[Any, ...] = (world,) if kind.needs_world else ()
    fresh = kind.form_class(*args, initial_data=logic, editor=wanted)
    if wanted == "json" or not isinstance(fresh, StructuredForm) or fresh.shows_all:
        return fresh
    stays = cast(StructuredForm, kind.form_class(*args, initial_data=logic, editor="json"))
    stays.editor_note = STAYS_JSON
    return stays


@login_required
@require_POST
def editor_switch(request: AuthedRequest, world_id: int, kind: Kind) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = switch_editor(kind, world, request.POST)
    if not request.htmx:  # a plain POST: the whole page, the form unsaved on the side picked
        key = request.POST.get("draft_key") or ""
        row = kind.model.objects.filter(world=world, key=key).first() if key else None
        return workspace(request, world, kind, form, row)
    context = {"world": world, "kind": kind, "form": form}
    return render(request, f"{kind.form_template}#logic-editor", context)
