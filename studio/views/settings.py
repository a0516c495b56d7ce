"""Generation settings (seed 004 "设置") and the five official presets as one-click entries."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from engine.world import WorldValidationError
from studio.access import get_world_for_user
from studio.editing import add_preset
from studio.forms import SettingsForm
from studio.models import World
from studio.presets import PRESETS, PRESETS_BY_KEY
from studio.views.common import AuthedRequest, apply, changed, posted, render_page
from studio.worlds import update_settings


def settings_page(
    request: AuthedRequest, world: World, form: SettingsForm, note: str = ""
) -> HttpResponse:
    present = set(world.entries.filter(key__startswith="preset-").values_list("key", flat=True))
    presets = [(p, p.entry_id in present) for p in PRESETS]
    context = {"world": world, "form": form, "presets": presets, "note": note}
    return render_page(
        request, "studio/settings.html", {**context, "section": "settings"}, partial="settings"
    )


@login_required
@require_http_methods(["GET", "POST"])
def world_settings(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = SettingsForm(posted(request), initial_data=world.settings)
    saving = request.method == "POST" and form.is_valid()
    if saving and apply(form, lambda data: update_settings(world, data)) is not None:
        if not request.htmx:
            messages.success(request, _("Settings saved."))
            return redirect("studio:settings", world.pk)
        form = SettingsForm(initial_data=world.settings)
        return changed(settings_page(request, world, form, _("Settings saved.")))
    return settings_page(request, world, form)


@login_required
@require_POST
def preset_add(request: AuthedRequest, world_id: int, key: str) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    preset = PRESETS_BY_KEY.get(key)
    if preset is None:
        raise Http404("no such preset")
    try:
        add_preset(world, preset)
        note = _("Preset “%(name)s” added.") % {"name": preset.title}
    except WorldValidationError as exc:
        note = "; ".join(exc.errors)
    if not request.htmx:
        messages.info(request, note)
        return redirect("studio:settings", world.pk)
    form = SettingsForm(initial_data=world.settings)
    return changed(settings_page(request, world, form, note))
