"""The game master's single objects (settings, clock, campaign notes) and the raw JSON fallback."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from engine.gm.vocab import TIMES_OF_DAY
from studio.forms.base import JSONTextField
from studio.forms.gamemaster.base import GMForm, choose, number, text


class SettingsForm(GMForm):
    """``settings``, ``clock`` and ``campaign`` of the block, on the overview page."""

    settings__tool_cap = number(8, label=_("Tool calls per turn"), min_value=1, max_value=64)
    settings__daily_quota = number(
        200,
        label=_("Daily actions per character"),
        min_value=0,
        max_value=100_000,
        help_text=_("With a live model; engine moves do not count."),
    )
    settings__directors = forms.BooleanField(
        label=_("Game, Story and Scene directors"),
        required=False,
        help_text=_("Off: one tool-calling master."),
    )
    settings__short_rest = number(
        1, label=_("A short rest takes"), min_value=0, max_value=8, help_text=_("Times of day.")
    )
    settings__long_rest = number(
        2, label=_("A long rest takes"), min_value=0, max_value=8, help_text=_("Times of day.")
    )
    clock__day = number(1, label=_("Day"), min_value=1)
    clock__time_of_day = choose(TIMES_OF_DAY, label=_("Time of day"))
    campaign__notes = text(
        3, label=_("Campaign notes"), help_text=_("Read by the master on demand.")
    )
    campaign__gm_notes = text(3, label=_("Notes for the Story Director only"))
    campaign__session_plan = text(2, label=_("Session plan"))
    campaign__state = text(2, label=_("Campaign state"))


def _object(value: Any) -> None:
    if not isinstance(value, dict):
        raise ValidationError(_("Must be a JSON object: the whole gameMaster block."), code="json")


class RawBlockForm(forms.Form):
    """The whole block as JSON: the fallback for what the forms do not edit."""

    block = JSONTextField(
        label=_("gameMaster (JSON)"),
        rows=24,
        required=True,
        validators=[_object],
        help_text=_("The whole block; it is validated and checked like every other save."),
    )

    def add_engine_errors(self, errors: list[str]) -> None:
        for line in errors:
            self.add_error("block", line)
