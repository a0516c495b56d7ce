"""Variables (seed 004 "变量与指令") and the JSON boxes the rule and reaction forms share.

A json variable's default value is edited as rows (key = value for an object, one item per row
for a list) or as raw JSON; the other types keep one box, read by the variable's type.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from engine.jsonguard import MAX_JSON_DEPTH, nesting_depth
from studio.forms.base import NESTED_TOO_DEEP, JSONTextField, choices, mono, optional_float
from studio.forms.rows import Pickers, RowForm, rowset, typed_value, value_text
from studio.forms.structured import StructuredForm

VARIABLE_ID_HELP = _("kebab-case, unique; not audio, user, char, time or date")
CONDITIONS_HELP = _('e.g. [{"variableId": "health", "operator": "gt", "value": 0}]')
SHAPES = (("object", _("an object (name = value)")), ("list", _("a list")))


def _must_be(kind: type, label: str) -> Any:
    def check(value: Any) -> None:
        if not isinstance(value, kind):
            raise ValidationError(
                _("Must be a JSON %(kind)s."), code="json_type", params={"kind": label}
            )

    return check


def json_object_field(label: Any, help_text: Any, rows: int = 4) -> JSONTextField:
    return JSONTextField(
        label=label,
        required=True,
        rows=rows,
        validators=[_must_be(dict, "object")],
        help_text=help_text,
    )


def json_list_field(label: Any, help_text: Any, rows: int = 6) -> JSONTextField:
    return JSONTextField(
        label=label, empty=[], rows=rows, validators=[_must_be(list, "array")], help_text=help_text
    )


def conditions_field() -> JSONTextField:
    """The state conditions of a rule, reaction or entry, as a JSON array."""
    return json_list_field(_("Conditions (JSON)"), CONDITIONS_HELP, rows=3)


def condition_logic_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        label=_("The conditions"),
        choices=(("all", _("must all hold (AND)")), ("any", _("any one is enough (OR)"))),
    )


class KeyValueRow(RowForm):
    key = forms.CharField(label=_("Name"), required=False, max_length=300)
    value = forms.CharField(
        label=_("Value"), required=False, strip=False, help_text=_("JSON, or plain text")
    )
    blank_fields = ("key", "value")

    def to_item(self, path: str) -> dict[str, Any] | None:
        data = self.cleaned_data
        return {"key": data["key"].strip(), "value": typed_value(data["value"], None)}

    @classmethod
    def from_item(cls, item: Any, pickers: Pickers) -> dict[str, Any] | None:
        return {"key": item["key"], "value": value_text(item["value"])}


KeyValueRows = rowset(KeyValueRow, "defaultValue", "dv")


class VariableForm(StructuredForm):
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
    default_shape = forms.ChoiceField(label=_("The default is"), choices=SHAPES, required=False)
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

    json_parts = ("default_value",)
    structured_fields = ("default_shape",)
    carried = ("type",)

    @classmethod
    def initial_from(cls, data: Any) -> dict[str, Any]:
        initial = super().initial_from(data)
        value = initial.get("default_value")
        if initial.get("type") == "json" or isinstance(value, bool):
            initial["default_value"] = json.dumps(value, ensure_ascii=False)
        return initial

    def fill(self, source: dict[str, Any]) -> bool:
        value = source.get("defaultValue")
        if isinstance(value, dict):
            rows = [{"key": str(k), "value": v} for k, v in value.items()]
        else:
            rows = [{"key": "", "value": v} for v in value] if isinstance(value, list) else []
        self.add_rows("defaultValue", KeyValueRows, rows)
        self.initial["default_shape"] = "list" if isinstance(value, list) else "object"
        return source.get("type") != "json" or isinstance(value, dict | list)

    def _rows_default(self) -> bool:
        return self.mode == "form" and self.cleaned_data.get("type") == "json"

    def structured(self) -> dict[str, Any] | None:
        if not self._rows_default():
            return {}
        items = self.rows_json("defaultValue")
        if items is None:
            return None
        if self.cleaned_data.get("default_shape") == "list":
            return {"default_value": [item["value"] for item in items]}
        out: dict[str, Any] = {}
        for index, item in enumerate(items):
            if not item["key"] or item["key"] in out:
                problem = _("enter a name") if not item["key"] else _("this name is used twice")
                row = self.rowsets["defaultValue"].row(index)
                message = f"defaultValue[{index}].key: {problem}"
                row.add_error("key", message) if row else self.add_error(None, message)
                return None
            out[item["key"]] = item["value"]
        return {"default_value": out}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if "type" in cleaned and "default_value" in cleaned and not self._rows_default():
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
