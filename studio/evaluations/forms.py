"""The form that starts an evaluation (issue 13 §2): a world version, models, a kind (route or
auto-play), games × actions, the player, the judge, a budget cap."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings
from django.core.validators import MaxValueValidator
from django.utils.translation import gettext_lazy as _

from engine.evals.sight import default_route, parse_route
from engine.world import WorldDefinition
from studio.evaluations import choices
from studio.evaluations.service import Request
from studio.models import World

MAX_MODELS = 6
MAX_ROUTE = 50


def max_budget() -> Decimal:
    return Decimal(f"{float(getattr(settings, 'FABULA_EVAL_MAX_BUDGET', 5)):g}")


def max_actions() -> int:
    return int(getattr(settings, "FABULA_EVAL_MAX_ACTIONS", 2000))


class EvaluationForm(forms.Form):
    version = forms.ChoiceField(label=_("World version"))
    kind = forms.ChoiceField(
        label=_("Kind"),
        choices=[
            ("route", _("Route: the same actions once per model")),
            ("auto", _("Auto-play: an automatic player plays N games × M actions")),
        ],
        widget=forms.RadioSelect,
        initial="route",
    )
    models = forms.MultipleChoiceField(
        label=_("Models"), required=False, widget=forms.CheckboxSelectMultiple
    )
    own_models = forms.CharField(
        label=_("More models on your own provider"),
        required=False,
        help_text=_("Comma-separated model names, e.g. gpt-4.1-mini, claude-haiku-4-5."),
    )
    route = forms.CharField(
        label=_("Route (one action per line)"),
        required=False,
        help_text=_("Played by the route kind; the default is built from the world."),
        widget=forms.Textarea(attrs={"rows": 10}),
    )
    games = forms.IntegerField(label=_("Games per model"), min_value=1, max_value=50, initial=3)
    actions = forms.IntegerField(
        label=_("Actions per game"), min_value=1, max_value=100, initial=20
    )
    player = forms.ChoiceField(label=_("Automatic player"))
    judge = forms.ChoiceField(label=_("Judge"))
    budget = forms.DecimalField(
        label=_("Budget cap (USD)"), min_value=Decimal("0.01"), decimal_places=2, initial=1
    )
    secrets = forms.CharField(
        label=_("More secret strings to watch for (one per line)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    canaries = forms.BooleanField(
        label=_("Plant code words in the NPCs' secrets"), required=False, initial=True
    )

    def __init__(
        self, *args: Any, user_id: int, world: World, definition: WorldDefinition, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.user_id, self.world = user_id, world
        self.versions = {str(v.pk): v for v in world.versions.order_by("-number")}
        picks = [(c.key, c.label) for c in choices.model_choices(user_id)]
        versions = [(pk, f"v{v.number}") for pk, v in self.versions.items()]
        self._choices("version", [("draft", _("The draft, as it is now")), *versions])
        self._choices("models", picks)
        self._choices("player", [(choices.OFFLINE, _("Offline scripted player")), *picks[1:]])
        self._choices("judge", [("detectors", _("Free detectors only")), *picks[1:]])
        self.fields["budget"].validators.append(MaxValueValidator(max_budget()))
        self.fields["route"].initial = "\n".join(default_route(definition))

    def _choices(self, name: str, options: list[tuple[str, Any]]) -> None:
        field = self.fields[name]
        assert isinstance(field, forms.ChoiceField)
        field.choices = options

    def clean_route(self) -> list[str]:
        route = parse_route(self.cleaned_data.get("route") or "")
        if not route and self.data.get("kind", "route") == "route":
            raise forms.ValidationError(_("Write at least one action."))
        if len(route) > MAX_ROUTE:
            raise forms.ValidationError(_("At most %(n)d actions.") % {"n": MAX_ROUTE})
        return route

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        keys = list(data.get("models") or [])
        for name in (data.get("own_models") or "").split(","):
            if name.strip():
                keys.append(f"own:{name.strip()}")
        try:
            keys = list(dict.fromkeys(choices.check_key(self.user_id, k) for k in keys))
        except choices.ChoiceError as exc:
            self.add_error("own_models", str(exc))
            return data
        if not keys:
            self.add_error("models", _("Pick at least one model."))
        elif len(keys) > MAX_MODELS:
            self.add_error("models", _("At most %(n)d models.") % {"n": MAX_MODELS})
        data["model_keys"] = keys
        self._check_size(data, keys)
        return data

    def _check_size(self, data: dict[str, Any], keys: list[str]) -> None:
        if data.get("kind") == "route":
            per_model = len(data.get("route") or [])
        else:
            per_model = int(data.get("games") or 0) * int(data.get("actions") or 0)
        if per_model * len(keys) > max_actions():
            self.add_error(None, _("At most %(n)d actions in all.") % {"n": max_actions()})

    def request(self) -> Request:
        data = self.cleaned_data
        version = self.versions.get(data["version"]) if data["version"] != "draft" else None
        return Request(
            kind=data["kind"],
            model_keys=data["model_keys"],
            version=version,
            route=data["route"],
            games=data["games"],
            actions=data["actions"],
            player=data["player"],
            judge=data["judge"],
            budget=data["budget"],
            secrets=[s.strip() for s in (data.get("secrets") or "").splitlines() if s.strip()],
            canaries=bool(data.get("canaries")),
        )
