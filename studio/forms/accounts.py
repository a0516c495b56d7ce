"""Sign-up and API token forms."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _


class SignupForm(UserCreationForm):  # type: ignore[type-arg]
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Token name"),
        max_length=100,
        widget=forms.TextInput(attrs={"placeholder": _("e.g. my export script")}),
    )
