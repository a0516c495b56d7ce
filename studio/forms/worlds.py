"""Forms for a world as a whole: its header, generation settings, publishing and import."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext_lazy as _

from studio.forms.base import EngineForm, choices, optional_float, optional_int


class WorldForm(EngineForm):
    name = forms.CharField(label=_("Name"), max_length=200)
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 4})
    )
    author = forms.CharField(label=_("Author"), required=False, max_length=200)
    language = forms.CharField(
        label=_("World language"),
        required=False,
        max_length=35,
        help_text=_("BCP 47 code of the story's language (en, zh, ja…); not the studio's."),
    )
    editor_mode = forms.ChoiceField(
        label=_("Editor mode"), choices=choices(("advanced", "simple")), initial="advanced"
    )

    def clean_language(self) -> str | None:
        return self.cleaned_data["language"].strip() or None


class NewWorldForm(EngineForm):
    name = forms.CharField(label=_("Name"), max_length=200)
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    language = forms.CharField(label=_("World language"), required=False, max_length=35)

    def clean_language(self) -> str | None:
        return self.cleaned_data["language"].strip() or None


class SettingsForm(EngineForm):
    max_tokens = forms.IntegerField(label=_("Max tokens per reply"), min_value=1)
    max_context = forms.IntegerField(label=_("Max context"), min_value=1)
    temperature = forms.FloatField(label=_("Temperature (0–2)"))
    top_p = forms.FloatField(label=_("Top P (0–1)"))
    top_k = optional_int(label=_("Top K"), help_text=_("Optional; 0 or more."))
    min_p = optional_float(label=_("Min P (0–1)"), help_text=_("Optional."))
    frequency_penalty = forms.FloatField(label=_("Frequency penalty (−2–2)"))
    presence_penalty = forms.FloatField(label=_("Presence penalty (−2–2)"))
    player_name = forms.CharField(
        label=_("Player name"), max_length=100, help_text=_("Default value of {{user}}.")
    )
    # SillyTavern's own defaults, said where a SillyTavern user looks for them: "Scan Depth" 2
    # (as ours), and "Recursive scan" on, bounded by the budget rather than by a step count.
    lorebook_scan_depth = forms.IntegerField(
        label=_("Lorebook scan depth"),
        help_text=_(
            "How many recent messages (yours and the AI's) are searched for keywords. Default 2, "
            "as SillyTavern's “Scan Depth”: the last two messages; 0 searches none."
        ),
    )
    lorebook_recursion_depth = forms.IntegerField(
        label=_("Lorebook recursion depth"),
        help_text=_(
            "How many more passes let the text of fired entries fire other entries. Default 0: "
            "off. SillyTavern's “Recursive scan” is on by default with no step limit; 3 is "
            "what an imported book with recursive scanning gets here."
        ),
    )
    structured_output = forms.BooleanField(label=_("Structured (JSON) output"), required=False)
    recommended_model = forms.CharField(
        label=_("Recommended model"),
        required=False,
        max_length=200,
        help_text=_(
            "The model you wrote this world for, e.g. claude-sonnet-4-5. Players on their own key "
            "get it unless they chose a model; on the site's key only where the site offers it."
        ),
    )


class PublishForm(forms.Form):
    changelog = forms.CharField(
        label=_("What changed"),
        required=False,
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": _("First release")}),
    )

    def __init__(self, *args: Any, game_master: bool = False, **kwargs: Any) -> None:
        """A game-master world also asks whether others may copy its secrets (issue 32)."""
        super().__init__(*args, **kwargs)
        if game_master:
            self.fields["remixable_secrets"] = forms.BooleanField(
                label=_("Remixable with its secrets"),
                required=False,
                help_text=_(
                    "Warning: anyone can then export or fork this version with its game "
                    "master's notes, NPC secrets, hidden places and clues, so players of a "
                    "remixable world can read its solution. Left off, others can only play it."
                ),
            )


class ImportForm(forms.Form):
    file = forms.FileField(
        label=_("File"),
        help_text=_(
            "A Fabula world (JSON), a character card (PNG or JSON, V1–V3) "
            "or a SillyTavern World Info file."
        ),
    )

    def clean_file(self) -> UploadedFile[bytes]:
        upload: UploadedFile[bytes] = self.cleaned_data["file"]
        if (upload.size or 0) > settings.MAX_IMPORT_BYTES:
            raise forms.ValidationError(_("The file is larger than 20 MB."))
        return upload
