"""The user's own model provider: key write-only, shown masked (mission P2); trying it (issue 16).

"Test connection" and "List models" answer with the ``provider_check`` fragment (the whole page
without htmx); picking a listed model saves it and answers with the settings form.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from play.errors import PlayError
from play.forms import ModelPickForm, ProviderForm
from play.models import ProviderSetting
from play.provider_check import CheckResult, list_models, test_connection
from play.providers import (
    clear_provider_setting,
    provider_setting_dict,
    save_provider_setting,
    set_provider_model,
)
from play.views.common import AuthedRequest, render_page

TEMPLATE = "play/provider.html"


@require_http_methods(["GET", "POST"])
@login_required
def provider_settings(request: AuthedRequest) -> HttpResponse:
    current = _current(request)
    form = ProviderForm(request.POST or None, initial=_initial(current))
    if request.method == "POST" and form.is_valid():
        try:
            save_provider_setting(
                request.user,
                provider=form.cleaned_data["provider"],
                base_url=form.cleaned_data["base_url"],
                model=form.cleaned_data["model"],
                api_key=form.api_key_change(),
            )
        except PlayError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(request, _("Your model settings are saved."))
            return redirect("play:provider")
    status = 400 if form.errors else 200
    context = _context(form, current)
    return render_page(request, TEMPLATE, context, partial="provider_form", status=status)


@require_POST
@login_required
def provider_reset(request: AuthedRequest) -> HttpResponse:
    clear_provider_setting(request.user)
    messages.success(request, _("You are back on the site's default model."))
    return redirect("play:provider")


@require_POST
@login_required
def provider_test(request: AuthedRequest) -> HttpResponse:
    return _check_page(request, test_connection(request.user, timezone.now()))


@require_POST
@login_required
def provider_models(request: AuthedRequest) -> HttpResponse:
    return _check_page(request, list_models(request.user, timezone.now()))


@require_POST
@login_required
def provider_pick(request: AuthedRequest) -> HttpResponse:
    pick = ModelPickForm(request.POST)
    note = ""
    if pick.is_valid():
        try:
            setting = set_provider_model(request.user, pick.cleaned_data["model"])
        except PlayError as exc:
            pick.add_error("model", exc.message)
        else:
            note = _("Your model is now %(model)s.") % {"model": setting.model}
    if not getattr(request, "htmx", False):
        for error in pick.errors.get("model", []):
            messages.error(request, str(error))
        if note:
            messages.success(request, note)
        return redirect("play:provider")
    current = _current(request)
    context = _context(ProviderForm(initial=_initial(current)), current) | {
        "note": note,
        "pick_errors": pick.errors.get("model", []),
    }
    status = 400 if pick.errors else 200
    return render_page(request, TEMPLATE, context, partial="provider_form", status=status)


def _check_page(request: AuthedRequest, check: CheckResult) -> HttpResponse:
    """The result of a try: the fragment for htmx, the whole page with it otherwise."""
    current = _current(request)
    context = _context(ProviderForm(initial=_initial(current)), current) | {"check": check}
    return render_page(request, TEMPLATE, context, partial="provider_check")


def _current(request: AuthedRequest) -> dict[str, object]:
    return provider_setting_dict(ProviderSetting.objects.filter(user=request.user).first())


def _initial(current: dict[str, object]) -> dict[str, object]:
    return {
        "provider": current["provider"] or "offline",
        "base_url": current["base_url"],
        "model": current["model"],
    }


def _context(form: ProviderForm, current: dict[str, object]) -> dict[str, object]:
    return {"form": form, "current": current, "site_default": _site_default()}


def _site_default() -> dict[str, str]:
    return {"provider": str(settings.FABULA_PROVIDER), "model": str(settings.FABULA_MODEL)}
