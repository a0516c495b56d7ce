"""Forms of the game master's space (seed 001 "Mundo"): locations with their exits and points,
and items with where they are."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from engine.gm.vocab import DIRECTIONS
from studio.forms.gamemaster.base import (
    CHECKS,
    GMForm,
    HolderField,
    LinesField,
    PickField,
    WordsField,
    choose,
    line,
    number,
    text,
)


def _found_by(data: dict[str, Any]) -> dict[str, Any]:
    found = data.get("foundBy") or {}
    if not found.get("check"):
        data["foundBy"] = None
    return data


class ExitRow(GMForm):
    direction = choose(DIRECTIONS, label=_("Direction"))
    to = PickField("locations", label=_("To"))
    locked = forms.BooleanField(label=_("Locked"), required=False)
    key = PickField("items", label=_("Opened by"), help_text=_("The item that opens the lock."))
    hidden = forms.BooleanField(label=_("Hidden"), required=False)
    found_by__check = choose(CHECKS, blank=True, label=_("Found by"))
    found_by__dc = forms.IntegerField(label=_("DC"), required=False, min_value=5, max_value=30)
    travel = number(0, label=_("Travel"), min_value=0, max_value=8)
    carries_sound = forms.BooleanField(label=_("Carries sound"), required=False)

    def finish(self, data: dict[str, Any]) -> dict[str, Any]:
        return _found_by(data)


class PointRow(GMForm):
    id = line(label=_("Id"), required=True)
    name = line(label=_("Name"), required=True)
    aliases = WordsField(label=_("Aliases"))
    description = text(1, label=_("Description"))


class HiddenPointRow(PointRow):
    found_by__check = choose(CHECKS, label=_("Found by"))
    found_by__dc = number(12, label=_("DC"), min_value=5, max_value=30)


class GatherableRow(GMForm):
    resource = line(label=_("Resource"), required=True, help_text=_("herbs, firewood…"))
    name = line(label=_("Shown as"))
    per_day = number(3, label=_("Per day"), min_value=1, max_value=1000)


class LocationForm(GMForm):
    id = line(label=_("Id"), help_text=_("kebab-case; made from the name when left blank"))
    name = line(label=_("Name"), required=True)
    aliases = WordsField(
        label=_("Aliases"), help_text=_("Comma-separated: other names players use.")
    )
    description = text(3, label=_("Description"))
    ambient = LinesField(
        label=_("Ambient lines"),
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("One per line."),
    )
    witness = forms.BooleanField(
        label=_("Witnesses always about"),
        required=False,
        help_text=_("A busy place: never “no witness”."),
    )
    alarm = line(label=_("Alarm"), help_text=_("fire, collapse… (blank: none)"))
    rows = {
        "exits": (ExitRow, _("Exits")),
        "points": (PointRow, _("Points of interest")),
        "hiddenPoints": (HiddenPointRow, _("Hidden points")),
        "gatherables": (GatherableRow, _("Things to gather")),
    }

    def finish(self, data: dict[str, Any]) -> dict[str, Any]:
        data["alarm"] = data.get("alarm") or None
        return data


class ItemForm(GMForm):
    id = line(label=_("Id"), help_text=_("kebab-case; made from the name when left blank"))
    name = line(label=_("Name"), required=True)
    aliases = WordsField(label=_("Aliases"))
    description = text(3, label=_("Description"))
    at = HolderField(
        "where",
        label=_("Where"),
        help_text=_(
            "A location (or one of its points), an NPC or a character; blank: not in play."
        ),
    )
    weight = forms.FloatField(label=_("Weight"), initial=0, min_value=0)
    value = number(0, label=_("Value"), min_value=0)
    damage = line(label=_("Damage"), help_text=_("Dice notation, for weapons: 1d8, 2d6+3."))
    finesse = forms.BooleanField(label=_("Finesse weapon"), required=False)

    def finish(self, data: dict[str, Any]) -> dict[str, Any]:
        data["damage"] = data.get("damage") or None
        return data
