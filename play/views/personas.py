"""Personas: the player's characters, one of them active (seed 000 persona macros)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from play.forms import PersonaForm
from play.personas import (
    activate_persona,
    create_persona,
    delete_persona,
    personas_of,
    update_persona,
)
from play.views.common import AuthedRequest, persona_for, render_page
from studio.forms.portraits import PortraitForm

TEMPLATE = "play/personas.html"


@require_GET
@login_required
def persona_list(request: AuthedRequest) -> HttpResponse:
    context = {"personas": personas_of(request.user), "form": PersonaForm()}
    return render_page(request, TEMPLATE, context, partial="persona_list")


@require_POST
@login_required
def persona_create(request: AuthedRequest) -> HttpResponse:
    form = PersonaForm(request.POST)
    if form.is_valid():
        create_persona(request.user, form.cleaned_data, activate=bool(request.POST.get("activate")))
        if not getattr(request, "htmx", False):
            messages.success(request, _("Persona saved."))
            return redirect("play:personas")
        form = PersonaForm()
    status = 400 if form.errors else 200
    context = {"personas": personas_of(request.user), "form": form}
    return render_page(request, TEMPLATE, context, partial="persona_section", status=status)


@require_http_methods(["GET", "POST"])
@login_required
def persona_edit(request: AuthedRequest, persona_id: int) -> HttpResponse:
    persona = persona_for(request, persona_id)
    form = PersonaForm(request.POST or None, instance=persona)
    if request.method == "POST" and form.is_valid():
        update_persona(persona, form.cleaned_data)
        messages.success(request, _("Persona saved."))
        return redirect("play:personas")
    status = 400 if form.is_bound else 200
    context = {
        "persona": persona,
        "form": form,
        "avatar_form": PortraitForm(auto_id="id_avatar_%s"),
    }
    return render_page(request, "play/persona_edit.html", context, status=status)


@require_POST
@login_required
def persona_delete(request: AuthedRequest, persona_id: int) -> HttpResponse:
    delete_persona(persona_for(request, persona_id))
    return _list_or_redirect(request)


@require_POST
@login_required
def persona_activate(request: AuthedRequest, persona_id: int) -> HttpResponse:
    activate_persona(persona_for(request, persona_id))
    return _list_or_redirect(request)


def _list_or_redirect(request: AuthedRequest) -> HttpResponse:
    if not getattr(request, "htmx", False):
        return redirect("play:personas")
    context = {"personas": personas_of(request.user), "form": PersonaForm()}
    return render_page(request, TEMPLATE, context, partial="persona_list")
