"""The upload form of a portrait or an avatar: the image and an optional square crop box."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from studio.portraits import CropBox

CROP_FIELDS = ("crop_x", "crop_y", "crop_size")


class PortraitForm(forms.Form):
    image = forms.FileField(
        label=_("Image"),
        help_text=_(
            "PNG, JPEG, WebP or GIF; cropped to a square (the centre, unless you give a crop box)."
        ),
    )
    crop_x = forms.IntegerField(label=_("Crop: left (px)"), required=False, min_value=0)
    crop_y = forms.IntegerField(label=_("Crop: top (px)"), required=False, min_value=0)
    crop_size = forms.IntegerField(label=_("Crop: side (px)"), required=False, min_value=1)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        given = [data.get(name) is not None for name in CROP_FIELDS]
        if any(given) and not all(given):
            self.add_error("crop_size", _("Give the left, top and side of the crop box together."))
        return data

    def crop(self) -> CropBox | None:
        """The crop box the form was given, or None (the centre square is taken)."""
        x, y, size = (self.cleaned_data.get(name) for name in CROP_FIELDS)
        if x is None or y is None or size is None:
            return None
        return CropBox(x, y, size)


class WorldPortraitForm(PortraitForm):
    """A world's portrait (no ``character``) or one of its game-master characters' portraits."""

    character = forms.CharField(required=False, max_length=100, widget=forms.HiddenInput)
