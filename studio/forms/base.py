"""Form pieces shared by every editor form: list and JSON inputs, engine errors on fields.

The engine's pydantic models are the only validator of world data. A form parses what the
browser sends into world JSON (``to_data``); when the service raises WorldValidationError its
``path: message`` lines are put back on the field they name (``add_engine_errors``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import ValidationError
from django.forms.utils import pretty_name
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from pydantic.alias_generators import to_camel

from engine.jsonguard import MAX_JSON_DEPTH, nesting_depth
from studio.labels import label_of
from studio.messages import translated_line

_SPLIT = re.compile(r"[,\n]")
_PATH_HEAD = re.compile(r"[.\[]")


def mono(rows: int = 6, **attrs: Any) -> forms.Textarea:
    return forms.Textarea(attrs={"rows": rows, "class": "mono", "spellcheck": "false", **attrs})


class ListField(forms.CharField):
    """A list of strings typed comma- or line-separated (keywords, tags, track ids)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]
        if isinstance(value, list):
            return [str(v).strip() for v in value if str(v).strip()]
        text = super().to_python(value) or ""
        return [part.strip() for part in _SPLIT.split(text) if part.strip()]

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return ", ".join(str(v) for v in value)
        return value


NESTED_TOO_DEEP = _("Nested deeper than %(limit)s levels.")


def check_nesting(text: str) -> None:
    """Refuse JSON text json.loads would recurse into too deeply (docs/LIMITS.md)."""
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise ValidationError(NESTED_TOO_DEEP, code="json", params={"limit": MAX_JSON_DEPTH})


class _RawJSON(str):
    """What the creator typed, kept verbatim when the form is shown again."""


class JSONTextField(forms.CharField):
    """A JSON document in a textarea; ``empty`` is used when the box is left blank."""

    def __init__(self, *, empty: Any = None, rows: int = 6, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", mono(rows))
        self.empty = empty
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> Any:
        if value is None:
            value = ""
        if not isinstance(value, str):
            return value
        if not value.strip():
            return json.loads(json.dumps(self.empty))
        check_nesting(value)
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValidationError(
                _("Not valid JSON: %(msg)s at line %(line)s column %(col)s"),
                code="json",
                params={"msg": exc.msg, "line": exc.lineno, "col": exc.colno},
            ) from None

    def validate(self, value: Any) -> None:
        if self.required and value in (None, "", [], {}):
            raise ValidationError(self.error_messages["required"], code="required")

    def bound_data(self, data: Any, initial: Any) -> Any:
        return _RawJSON(data) if isinstance(data, str) else data

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, _RawJSON):
            return str(value)
        if value is None:
            return ""
        return json.dumps(value, indent=2, ensure_ascii=False)

    def has_changed(self, initial: Any, data: Any) -> bool:
        return True


def optional_int(**kwargs: Any) -> forms.IntegerField:
    return forms.IntegerField(required=False, **kwargs)


def optional_float(**kwargs: Any) -> forms.FloatField:
    return forms.FloatField(required=False, **kwargs)


def choices(values: Iterable[str]) -> list[tuple[str, str | Promise]]:
    """Options whose labels are the engine ids in the page's language (studio.labels)."""
    return [(v, label_of(v)) for v in values]


def set_choices(form: forms.BaseForm, name: str, options: list[tuple[str, Any]]) -> None:
    """Fill a ChoiceField's options at runtime (folders, tracks of this world)."""
    field = form.fields[name]
    assert isinstance(field, forms.ChoiceField)
    field.choices = options


def required_message(label: Any) -> str:
    """“Name is required.”: the error of an empty required box names the box (issue 35 §2).

    Made when the form is (in the request's language), so it need not be lazy.
    """
    return gettext("{field} is required.").format(field=label)


def _blank(value: Any) -> bool:
    return value is None or not str(value).strip()


class EngineForm(forms.Form):
    """A form whose cleaned data becomes world JSON and whose errors come from the engine.

    Field names are the engine's snake_case attributes; ``json_keys`` overrides the camelCase
    key where ``to_camel`` gets it wrong, and ``local_fields`` never reach the JSON. A form with
    both a name and an id box refuses both empty (the service would make a junk item named
    after the noun), and ``required_text`` boxes refuse blank text.
    """

    json_keys: ClassVar[dict[str, str]] = {}
    local_fields: ClassVar[tuple[str, ...]] = ()
    required_text: ClassVar[tuple[str, ...]] = ()
    required_css_class = "required"

    def __init__(
        self,
        *args: Any,
        initial_data: Mapping[str, Any] | None = None,
        draft: bool = False,
        **kwargs: Any,
    ):
        if initial_data is not None:
            kwargs["initial"] = self.initial_from(initial_data)
        super().__init__(*args, **kwargs)
        self.draft = draft  # previewed while typed, never saved: nothing need be filled in yet
        for name, field in self.fields.items():
            field.error_messages["required"] = required_message(field.label or pretty_name(name))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.draft:
            return cleaned
        named = {"name", "id"} <= self.fields.keys() and not {"name", "id"} & self.errors.keys()
        if named and _blank(cleaned.get("name")) and _blank(cleaned.get("id")):
            self.add_error("name", required_message(self.fields["name"].label))
        for name in self.required_text:
            if name not in self.errors and _blank(cleaned.get(name)):
                self.add_error(name, required_message(self.fields[name].label))
        return cleaned

    @classmethod
    def json_key(cls, name: str) -> str:
        return cls.json_keys.get(name, to_camel(name))

    @classmethod
    def initial_from(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        """Form initial values from world JSON (camelCase keys)."""
        names = cls.base_fields.keys()
        return {name: data[cls.json_key(name)] for name in names if cls.json_key(name) in data}

    def to_data(self) -> dict[str, Any]:
        """The cleaned data as world JSON; an empty ``id`` is left out so the service picks one."""
        data = {
            self.json_key(name): value
            for name, value in self.cleaned_data.items()
            if name not in self.local_fields
        }
        if data.get("id") == "":
            del data["id"]
        return data

    def add_engine_errors(self, errors: Iterable[str]) -> None:
        """Put each ``path: message`` of a WorldValidationError on the field it names."""
        by_key = {self.json_key(name): name for name in self.fields}
        for line in map(translated_line, errors):
            path, _sep, message = line.partition(": ")
            head = _PATH_HEAD.split(path, maxsplit=1)[0]
            name = by_key.get(head)
            if name is None:
                self.add_error(None, line)
            elif path == head:
                self.add_error(name, message)
            else:
                self.add_error(name, line)
