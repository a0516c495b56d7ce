"""Sign up, and the account page with personal API tokens (shown once, revocable)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from studio.forms import SignupForm, TokenForm
from studio.models import ApiToken
from studio.signups import sign_up
from studio.throttle import client_address
from studio.tokens import create_token, revoke_token
from studio.views.common import AuthedRequest, Request, posted, render_page


@require_http_methods(["GET", "POST"])
def signup(request: Request) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("studio:world_list")
    address = client_address(request)  # sign-ups count per address (studio.signups)
    form = SignupForm(posted(request), address=address)
    user = sign_up(form, address) if request.method == "POST" and form.is_valid() else None
    if user is not None:
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome to Fabula, %(name)s.") % {"name": user.username})
        return redirect("studio:world_list")
    return render_page(request, "registration/signup.html", {"form": form})


def account_page(
    request: AuthedRequest, form: TokenForm | None = None, secret: str = ""
) -> HttpResponse:
    tokens = ApiToken.objects.filter(user=request.user)
    context = {"tokens": tokens, "form": form or TokenForm(), "secret": secret}
    return render_page(request, "studio/account.html", context, partial="tokens")


@login_required
@require_GET
def account(request: AuthedRequest) -> HttpResponse:
    return account_page(request)


@never_cache  # the response holds the secret
@login_required
@require_POST
def token_create(request: AuthedRequest) -> HttpResponse:
    form = TokenForm(request.POST)
    if not form.is_valid():
        return account_page(request, form)
    data = form.cleaned_data
    _token, secret = create_token(
        request.user, data["name"], scope=data["scope"], days=data["days"]
    )
    # The secret exists only in this response; a redirect would lose it, so render in place.
    return account_page(request, secret=secret)


@login_required
@require_POST
def token_revoke(request: AuthedRequest, token_id: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=token_id, user=request.user)
    revoke_token(token)
    if not request.htmx:
        messages.success(request, _("Token revoked."))
        return redirect("account")
    return account_page(request)
