"""Forms of the play pages: starting a session, personas, the user's own model provider."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from play.gm import version_characters
from play.models import PROVIDERS, Persona
from play.narrator import default_mode

START_MODES = [
    ("live", _("Live narrator")),
    ("record", _("Live narrator, recorded as a demo")),
    ("offline", _("Offline (no model call, free)")),
]
NO_MODEL_MODES = [
    ("offline", _("Offline narrator — no model (free)")),
    ("live", _("A model, once one is set in “My model” (offline until then)")),
]
PROVIDER_LABELS = {
    "offline": _("Offline (no model; free)"),
    "openai": _("OpenAI-compatible (OpenAI, OpenRouter, Ollama, llama.cpp, vLLM)"),
    "anthropic": _("Anthropic"),
}


class StartSessionForm(forms.Form):
    persona = forms.ModelChoiceField(
        label=_("Play as"),
        queryset=Persona.objects.none(),
        required=False,
        empty_label=_("(no persona)"),
    )
    mode = forms.ChoiceField(label=_("Narrator"), choices=START_MODES, initial="live")

    def __init__(
        self,
        *args: Any,
        user: Any = None,
        characters: list[tuple[str, str]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if characters and len(characters) > 1:  # a game-master world: whom the player plays
            self.fields["character"] = character_field(characters)
        personas = Persona.objects.filter(user=user) if user is not None else Persona.objects.none()
        field = self.fields["persona"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = personas
        active = next((p for p in personas if p.is_active), None)
        if active is not None and not self.is_bound:
            self.initial.setdefault("persona", active.pk)
        if default_mode(user) == "offline":  # no model configured: say what "live" would do
            mode = self.fields["mode"]
            assert isinstance(mode, forms.ChoiceField)
            mode.choices = NO_MODEL_MODES
            self.initial.setdefault("mode", "offline")
        else:
            self.initial.setdefault("mode", "live")


def character_field(characters: list[tuple[str, str]]) -> forms.ChoiceField:
    """The player character to play, in a game-master world; the first is the default."""
    return forms.ChoiceField(
        label=_("Character"), choices=characters, initial=characters[0][0], required=False
    )


class CharacterForm(forms.Form):
    """A guest preview's only choice: the character, when the world has several."""


def character_form(data: Any, version: Any) -> CharacterForm:
    form = CharacterForm(data)
    characters = version_characters(version)
    if len(characters) > 1:
        form.fields["character"] = character_field(characters)
    return form


class SessionPersonaForm(forms.Form):
    persona = forms.ModelChoiceField(
        label=_("Play as"),
        queryset=Persona.objects.none(),
        required=False,
        empty_label=_("(no persona)"),
    )

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["persona"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = Persona.objects.filter(user=user)


class PersonaForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Persona
        fields = ["name", "appearance", "personality", "backstory"]
        labels = {
            "name": _("Name"),
            "appearance": _("Appearance"),
            "personality": _("Personality"),
            "backstory": _("Backstory"),
        }
        help_texts = {"name": _("What {{user}} becomes in the story.")}
        widgets = {
            "appearance": forms.Textarea(attrs={"rows": 3}),
            "personality": forms.Textarea(attrs={"rows": 3}),
            "backstory": forms.Textarea(attrs={"rows": 4}),
        }

    def clean_name(self) -> str:
        name = str(self.cleaned_data["name"]).strip()
        if not name:
            raise forms.ValidationError(_("A persona needs a name."))
        return name


class ProviderForm(forms.Form):
    """The user's own provider. The key is write-only: blank keeps the stored one."""

    provider = forms.ChoiceField(
        label=_("Provider"), choices=[(p, PROVIDER_LABELS[p]) for p in PROVIDERS]
    )
    base_url = forms.URLField(
        label=_("Base URL"),
        required=False,
        max_length=500,
        assume_scheme="https",
        help_text=_(
            "Only for OpenAI-compatible servers, e.g. https://openrouter.ai/api/v1. Local and "
            "private addresses work only where the site allows them."
        ),
    )
    model = forms.CharField(
        label=_("Model"),
        required=False,
        max_length=200,
        help_text=_("Blank: the site's default model."),
    )
    api_key = forms.CharField(
        label=_("API key"),
        required=False,
        max_length=500,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text=_("Stored encrypted and never shown again. Leave blank to keep the saved key."),
    )
    clear_key = forms.BooleanField(label=_("Remove the saved key"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        provider = data.get("provider")
        if provider == "anthropic" and data.get("base_url"):
            self.add_error("base_url", _("Anthropic does not take a base URL here."))
        if data.get("clear_key") and data.get("api_key"):
            self.add_error("api_key", _("Either enter a new key or remove the saved one."))
        return data

    def api_key_change(self) -> str | None:
        """None keeps the stored key, "" removes it, anything else replaces it."""
        if self.cleaned_data.get("clear_key"):
            return ""
        return self.cleaned_data.get("api_key") or None


class ModelPickForm(forms.Form):
    """One of the models "List models" found, picked as the user's model."""

    model = forms.CharField(label=_("Model"), max_length=200)
