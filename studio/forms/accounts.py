"""Sign-up, login and API token forms."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from studio import signups
from studio.throttle import client_address, lockout_message, lockout_seconds
from studio.tokens import DEFAULT_LIFETIME_DAYS, LIFETIME_DAYS


def _day_count(n: int) -> str:
    return ngettext("%(n)d day", "%(n)d days", n) % {"n": n}


_days = lazy(_day_count, str)  # the choices are built at import, before any language is active


class SignupForm(UserCreationForm):  # type: ignore[type-arg]
    """Refuses at once, with the wait, while the client's address may not sign up (studio.signups);
    ``signups.sign_up`` counts the account when it saves it."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def __init__(self, *args: Any, address: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.address = address

    def clean(self) -> dict[str, Any]:
        seconds = signups.wait_seconds(self.address)
        if seconds:
            raise ValidationError(signups.refusal(seconds), code="throttled")
        return super().clean() or {}


class ThrottledLoginMixin:
    """Says "try again in N minutes" instead of checking a password while the login is locked.

    The failure that reaches the limit already gets the lockout message, not "wrong password".
    """

    request: HttpRequest | None
    cleaned_data: dict[str, Any]

    def clean(self) -> dict[str, Any]:
        self._refuse_while_locked()
        try:
            return super().clean()  # type: ignore[misc,no-any-return]
        except ValidationError:
            self._refuse_while_locked()
            raise

    def _refuse_while_locked(self) -> None:
        username = self.cleaned_data.get("username")
        seconds = lockout_seconds(username, client_address(self.request)) if username else 0
        if seconds:
            raise ValidationError(lockout_message(seconds), code="throttled")


class LoginForm(ThrottledLoginMixin, AuthenticationForm):
    pass


class AdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    pass


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Token name"),
        max_length=100,
        widget=forms.TextInput(attrs={"placeholder": _("e.g. my export script")}),
    )
    scope = forms.ChoiceField(
        label=_("Scope"),
        choices=[("read", _("Read only")), ("write", _("Read and write"))],
        initial="read",
    )
    days = forms.TypedChoiceField(
        label=_("Expires after"),
        choices=[(d, _days(d)) for d in LIFETIME_DAYS],
        coerce=int,
        initial=DEFAULT_LIFETIME_DAYS,
    )
