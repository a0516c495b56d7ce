"""Forms for audio tracks, conditional BGM, the playlist, components and the custom UI files."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext_lazy as _

from studio.forms.base import (
    EngineForm,
    JSONTextField,
    ListField,
    choices,
    mono,
    optional_float,
    optional_int,
    set_choices,
)
from studio.forms.entries import ID_HELP
from studio.forms.logic import CONDITIONS_HELP
from studio.models import World

SECONDS = _("seconds")


class AudioTrackForm(EngineForm):
    id = forms.CharField(label=_("ID"), required=False, max_length=120, help_text=ID_HELP)
    name = forms.CharField(label=_("Name"), required=False, max_length=300)
    type = forms.ChoiceField(label=_("Type"), choices=choices(("bgm", "sfx", "ambient")))
    url = forms.CharField(
        label=_("Source"),
        required=False,
        max_length=2000,
        help_text=_("@asset:<id> of an uploaded file, or a direct URL."),
    )
    volume = forms.FloatField(label=_("Volume (0–1)"), initial=1.0)
    loop = forms.BooleanField(label=_("Loop"), required=False)
    fade_in = optional_float(label=_("Fade in"), help_text=SECONDS)
    fade_out = optional_float(label=_("Fade out"), help_text=SECONDS)
    max_duration = optional_float(label=_("Stop after"), help_text=SECONDS)


class AssetUploadForm(EngineForm):
    file = forms.FileField(label=_("Audio file"), help_text=_("WAV, MP3, OGG, FLAC or M4A."))
    track_name = forms.CharField(label=_("Track name"), required=False, max_length=300)
    type = forms.ChoiceField(label=_("Type"), choices=choices(("bgm", "sfx", "ambient")))


def track_choices(world: World, current: str | None = None) -> list[tuple[str, str]]:
    options = [(t.key, t.name or t.key) for t in world.audio_tracks.all()]
    if current and current not in {key for key, _label in options}:
        options.append((current, current))
    return options


class ConditionalBGMForm(EngineForm):
    json_keys: ClassVar[dict[str, str]] = {"stop_previous_bgm": "stopPreviousBGM"}

    id = forms.CharField(label=_("ID"), required=False, max_length=120, help_text=ID_HELP)
    name = forms.CharField(label=_("Name"), required=False, max_length=300)
    target_track_id = forms.ChoiceField(label=_("Track to play"))
    trigger_type = forms.ChoiceField(
        label=_("Trigger"),
        choices=choices(("variable", "ai-keyword", "keyword", "turn-count", "session-start")),
    )
    conditions = JSONTextField(
        label=_("Conditions (JSON)"), empty=[], rows=3, help_text=CONDITIONS_HELP
    )
    condition_logic = forms.ChoiceField(label=_("Condition logic"), choices=choices(("all", "any")))
    keywords = ListField(label=_("Keywords"))
    match_whole_words = forms.BooleanField(label=_("Match whole words"), required=False)
    at_turn = optional_int(label=_("At turn"))
    every_n_turns = optional_int(label=_("Every N turns"), min_value=1)
    priority = forms.IntegerField(label=_("Priority"), initial=0)
    fade_in_duration = optional_float(label=_("Fade in"), help_text=SECONDS)
    fade_out_duration = optional_float(label=_("Fade out"), help_text=SECONDS)
    stop_previous_bgm = forms.BooleanField(
        label=_("Stop previous BGM"), required=False, initial=True
    )
    fallback = forms.CharField(
        label=_("Fallback"),
        initial="default",
        max_length=120,
        help_text=_("default, previous, or a track id"),
    )

    def __init__(self, world: World, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = "target_track_id"
        current = self.data.get(field) if self.is_bound else self.initial.get(field)
        set_choices(self, field, track_choices(world, current))


class PlaylistForm(EngineForm):
    tracks = ListField(
        label=_("Tracks"), help_text=_("Track ids in order, comma separated."), required=True
    )
    play_mode = forms.ChoiceField(
        label=_("Play mode"), choices=choices(("loop", "shuffle", "sequential"))
    )
    gap_seconds = forms.FloatField(label=_("Gap between tracks"), initial=0, help_text=SECONDS)
    auto_play = forms.BooleanField(label=_("Play automatically"), required=False, initial=True)
    wait_for_first_message = forms.BooleanField(
        label=_("Wait for the first message"), required=False
    )


class ComponentForm(EngineForm):
    local_fields: ClassVar[tuple[str, ...]] = ("props",)

    id = forms.CharField(label=_("ID"), max_length=120)
    type = forms.CharField(
        label=_("Type"), max_length=60, help_text=_("e.g. status-bar, gauge, text")
    )
    name = forms.CharField(label=_("Name"), required=False, max_length=300)
    variable_id = forms.CharField(label=_("Variable"), required=False, max_length=120)
    props = JSONTextField(
        label=_("Other settings (JSON object)"), empty={}, rows=5, help_text=_("Kept as they are.")
    )

    @classmethod
    def initial_from(cls, data: Any) -> dict[str, Any]:
        initial = super().initial_from(data)
        known = {cls.json_key(name) for name in cls.base_fields}
        initial["props"] = {k: v for k, v in data.items() if k not in known}
        return initial

    def clean_variable_id(self) -> str | None:
        return self.cleaned_data["variable_id"] or None

    def clean_props(self) -> dict[str, Any]:
        props = self.cleaned_data["props"]
        if not isinstance(props, dict):
            raise forms.ValidationError(_("Must be a JSON object."))
        return props

    def to_data(self) -> dict[str, Any]:
        return {**self.cleaned_data["props"], **super().to_data()}


class RootComponentForm(EngineForm):
    name = forms.CharField(label=_("UI name"), required=False, max_length=300)
    entry_file = forms.CharField(label=_("Entry file"), initial="index.tsx", max_length=300)


class RootFileForm(forms.Form):
    path = forms.CharField(
        label=_("Path"), max_length=300, help_text=_("e.g. index.tsx or parts/bubble.tsx")
    )
    source = forms.CharField(
        label=_("Source"), required=False, widget=mono(16, wrap="off"), strip=False
    )
