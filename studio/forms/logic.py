"""Forms for variables, rules and reactions (seed 004 "变量与指令", "规则与响应").

Rules and reactions get structured fields for their common parts and JSON boxes for the
trigger, actions, event pattern and effects; the engine's models check the JSON and their
field paths (``actions[0].variableId``) are shown on the box they belong to.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from engine.jsonguard import MAX_JSON_DEPTH, nesting_depth
from studio.forms.base import (
    NESTED_TOO_DEEP,
    EngineForm,
    JSONTextField,
    choices,
    mono,
    optional_float,
    optional_int,
)
from studio.forms.entries import ID_HELP

VARIABLE_ID_HELP = _("kebab-case, unique; not audio, user, char, time or date")
CONDITIONS_HELP = _('e.g. [{"variableId": "health", "operator": "gt", "value": 0}]')


class VariableForm(EngineForm):
    id = forms.CharField(label=_("ID"), required=False, max_length=120, help_text=VARIABLE_ID_HELP)
    name = forms.CharField(label=_("Name"), required=False, max_length=300)
    type = forms.ChoiceField(
        label=_("Type"), choices=choices(("number", "string", "boolean", "json"))
    )
    default_value = forms.CharField(
        label=_("Default value"),
        required=False,
        widget=mono(2),
        help_text=_("A number, text, true/false, or JSON for json variables."),
    )
    min = optional_float(label=_("Minimum"))
    max = optional_float(label=_("Maximum"))
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    behavior_rules = forms.CharField(
        label=_("Behaviour rules"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("Tells the AI when and how to change this variable."),
    )

    @classmethod
    def initial_from(cls, data: Any) -> dict[str, Any]:
        initial = super().initial_from(data)
        value = initial.get("default_value")
        if initial.get("type") == "json" or isinstance(value, bool):
            initial["default_value"] = json.dumps(value, ensure_ascii=False)
        return initial

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if "type" in cleaned and "default_value" in cleaned:
            try:
                cleaned["default_value"] = parse_default(cleaned["type"], cleaned["default_value"])
            except ValueError as exc:
                self.add_error("default_value", str(exc))
        return cleaned


def parse_default(kind: str, text: str) -> Any:
    """The typed default value of a variable from what the creator typed."""
    text = text.strip()
    if kind == "string":
        return text
    if not text:
        return None
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError(_("Enter a number.")) from None
        return int(number) if number.is_integer() and "." not in text else number
    if kind == "boolean":
        if text.lower() not in ("true", "false"):
            raise ValueError(_("Enter true or false."))
        return text.lower() == "true"
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise ValueError(NESTED_TOO_DEEP % {"limit": MAX_JSON_DEPTH})
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            _("Not valid JSON: %(msg)s at line %(line)s column %(col)s")
            % {"msg": exc.msg, "line": exc.lineno, "col": exc.colno}
        ) from None


def _must_be(kind: type, label: str) -> Any:
    def check(value: Any) -> None:
        if not isinstance(value, kind):
            raise ValidationError(
                _("Must be a JSON %(kind)s."), code="json_type", params={"kind": label}
            )

    return check


def conditions_field() -> JSONTextField:
    """The state conditions of a rule or reaction, as a JSON array."""
    return JSONTextField(
        label=_("Conditions (JSON)"),
        empty=[],
        rows=3,
        validators=[_must_be(list, "array")],
        help_text=CONDITIONS_HELP,
    )


def condition_logic_field() -> forms.ChoiceField:
    return forms.ChoiceField(label=_("Condition logic"), choices=choices(("all", "any")))


class RuleForm(EngineForm):
    id = forms.CharField(label=_("ID"), required=False, max_length=120, help_text=ID_HELP)
    name = forms.CharField(label=_("Name"), required=False, max_length=300)
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    priority = forms.IntegerField(
        label=_("Priority"), initial=0, help_text=_("Higher fires first.")
    )
    enabled = forms.BooleanField(label=_("Enabled"), required=False, initial=True)
    cooldown_turns = optional_int(label=_("Cooldown (turns)"), min_value=0)
    max_fire_count = optional_int(label=_("Max fire count"), min_value=0)
    condition_logic = condition_logic_field()
    trigger = JSONTextField(
        label=_("Trigger (JSON)"),
        required=True,
        rows=5,
        validators=[_must_be(dict, "object")],
        help_text=_('e.g. {"type": "keyword", "keywords": ["tavern"]}'),
    )
    conditions = conditions_field()
    actions = JSONTextField(
        label=_("Actions (JSON)"),
        empty=[],
        rows=8,
        validators=[_must_be(list, "array")],
        help_text=_('e.g. [{"type": "notify-player", "style": "info", "message": "Hello"}]'),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound and "trigger" not in self.initial:
            self.initial["trigger"] = {"type": "every-turn"}


class ReactionForm(EngineForm):
    id = forms.CharField(label=_("ID"), required=False, max_length=120, help_text=ID_HELP)
    name = forms.CharField(label=_("Name"), required=False, max_length=300)
    enabled = forms.BooleanField(label=_("Enabled"), required=False, initial=True)
    condition_logic = condition_logic_field()
    when = JSONTextField(
        label=_("When (event pattern, JSON)"),
        required=True,
        rows=4,
        validators=[_must_be(dict, "object")],
        help_text=_('e.g. {"eventType": "message:user"}'),
    )
    conditions = conditions_field()
    then = JSONTextField(
        label=_("Then (effects, JSON)"),
        empty=[],
        rows=8,
        validators=[_must_be(list, "array")],
        help_text=_('e.g. [{"type": "set", "path": "weather", "value": "foggy"}]'),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound and "when" not in self.initial:
            self.initial["when"] = {"eventType": "turn:complete"}
