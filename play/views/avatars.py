"""A persona's avatar: upload (cropped to a square, re-encoded) and removal (issue 16 §4).

Only the persona's owner reaches them (``persona_for``: 404 for anybody else's). The form lives
on the persona's edit page; a plain POST redirects there, a refused file re-renders it (400)
with the reason on the ``image`` field.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from play.forms import PersonaForm
from play.personas import clear_persona_avatar, set_persona_avatar
from play.views.common import AuthedRequest, persona_for, render_page
from studio.forms.portraits import PortraitForm
from studio.services import PortraitError


@require_POST
@login_required
def avatar_upload(request: AuthedRequest, persona_id: int) -> HttpResponse:
    persona = persona_for(request, persona_id)
    form = PortraitForm(request.POST, request.FILES, auto_id="id_avatar_%s")
    if form.is_valid():
        try:
            set_persona_avatar(persona, form.cleaned_data["image"], form.crop())
        except PortraitError as exc:
            form.add_error("image", exc.message)
        else:
            messages.success(request, _("Avatar saved."))
            return redirect("play:persona_edit", persona.pk)
    context = {"persona": persona, "form": PersonaForm(instance=persona), "avatar_form": form}
    return render_page(request, "play/persona_edit.html", context, status=400)


@require_POST
@login_required
def avatar_remove(request: AuthedRequest, persona_id: int) -> HttpResponse:
    persona = persona_for(request, persona_id)
    clear_persona_avatar(persona)
    messages.success(request, _("Avatar removed."))
    return redirect("play:persona_edit", persona.pk)
