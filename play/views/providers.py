"""The user's own model provider: key write-only, shown masked (mission P2)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from play.errors import PlayError
from play.forms import ProviderForm
from play.models import ProviderSetting
from play.providers import clear_provider_setting, provider_setting_dict, save_provider_setting
from play.views.common import AuthedRequest, render_page

TEMPLATE = "play/provider.html"


@require_http_methods(["GET", "POST"])
@login_required
def provider_settings(request: AuthedRequest) -> HttpResponse:
    setting = ProviderSetting.objects.filter(user=request.user).first()
    current = provider_setting_dict(setting)
    initial = {k: current[k] for k in ("base_url", "model")} | {
        "provider": current["provider"] or "offline"
    }
    form = ProviderForm(request.POST or None, initial=initial)
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
    context = {"form": form, "current": current, "site_default": _site_default()}
    return render_page(
        request, TEMPLATE, context, partial="provider_form", status=400 if form.errors else 200
    )


@require_POST
@login_required
def provider_reset(request: AuthedRequest) -> HttpResponse:
    clear_provider_setting(request.user)
    messages.success(request, _("You are back on the site's default model."))
    return redirect("play:provider")


def _site_default() -> dict[str, str]:
    return {"provider": str(settings.FABULA_PROVIDER), "model": str(settings.FABULA_MODEL)}
