"""Rows of small objects (conditions, actions, effects, key/value pairs) and what they offer.

A list of a world item (a rule's ``conditions``, its ``actions``…) is edited as rows: one Django
formset per list, with a blank row to add one and a "Remove" box per row, so the editor works
without JavaScript (studio.js only clones the blank row for more). Each row form turns itself into
one JSON item (``to_item``) and back (``from_item``, None when the row cannot show every key of it).
The pickers offer the world's ids; a value box is read by the type of the variable it is for.
``studio.forms.structured`` holds the rows in an editor form, beside the raw JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

from django import forms
from django.db.models import F, Value
from django.forms import BaseFormSet, formset_factory
from django.utils.translation import gettext_lazy as _
from pydantic.alias_generators import to_camel, to_snake

from engine.world import OPERATORS
from studio.models import AudioTrack, Entry, Rule, Variable, World

OPERATOR_LABELS = {
    "eq": _("= equals"),
    "neq": _("≠ differs from"),
    "gt": _("> above"),
    "lt": _("< below"),
    "gte": _("≥ at least"),
    "lte": _("≤ at most"),
    "contains": _("contains"),
}


# --- what the pickers offer -------------------------------------------------------------------


@dataclass(frozen=True)
class Pickers:
    """The ids (and names) a row may name: variables with their type, entries, rules, tracks."""

    variables: dict[str, tuple[str, str]] = field(default_factory=dict)  # id → (name, type)
    entries: list[tuple[str, str]] = field(default_factory=list)
    rules: list[tuple[str, str]] = field(default_factory=list)
    tracks: list[tuple[str, str]] = field(default_factory=list)

    def kind_of(self, target: str) -> str | None:
        """The type of the variable ``target`` names: by id, by name, or a path inside one."""
        if target in self.variables:
            return self.variables[target][1]
        for name, kind in self.variables.values():
            if name and name == target:
                return kind
        return "json" if "." in target else None

    def variable_options(self, current: str = "") -> list[tuple[str, str]]:
        options = [("", str(_("— variable —")))]
        options += [
            (key, f"{name} ({key})" if name else key) for key, (name, _k) in self.variables.items()
        ]
        if current and current not in self.variables:
            options.append((current, current))
        return options


def load_pickers(world: World) -> Pickers:
    """Everything the pickers offer, in one query (a UNION of the four lists), or from the live
    preview's cached draft when it is current (issue 14 §2: no query)."""
    from studio.draft_cache import current_definition  # imports studio.items: not at load time

    cached = current_definition(world)
    if cached is not None:
        return Pickers(
            variables={v.id: (v.name, v.type) for v in cached.variables},
            entries=[(e.id, e.name) for e in cached.entries],
            rules=[(r.id, r.name) for r in cached.rules],
            tracks=[(t.id, t.name) for t in cached.audio_tracks],
        )

    def rows(model: Any, kind: str, info: Any) -> Any:
        return (
            model.objects.filter(world=world)
            .order_by()
            .annotate(kind=Value(kind), info=info)
            .values("kind", "key", "name", "info", "position")
        )

    empty = Value("")
    query = rows(Variable, "variable", F("type")).union(
        rows(Entry, "entry", empty),
        rows(Rule, "rule", empty),
        rows(AudioTrack, "track", F("type")),
        all=True,
    )
    found: dict[str, list[tuple[str, str, str]]] = {
        "variable": [],
        "entry": [],
        "rule": [],
        "track": [],
    }
    for row in sorted(query, key=lambda r: (r["kind"], r["position"])):
        found[row["kind"]].append((row["key"], row["name"], row["info"]))
    return Pickers(
        variables={key: (name, info) for key, name, info in found["variable"]},
        entries=[(key, name) for key, name, _i in found["entry"]],
        rules=[(key, name) for key, name, _i in found["rule"]],
        tracks=[(key, name) for key, name, _i in found["track"]],
    )


class PickField(forms.CharField):
    """A select of the world's ids that takes any value: a missing id is the engine's to report."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.Select())
        super().__init__(**kwargs)


# --- values typed in a box --------------------------------------------------------------------


def _reads_as_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def value_text(value: Any, kind: str | None = None) -> str:
    """A JSON value as shown in a value box, so that ``typed_value`` reads the same value back."""
    if value is None:
        return ""
    if isinstance(value, str):
        plain = kind == "string" or not _reads_as_json(value)
        return value if plain else json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)


def fits(value: Any, kind: str | None) -> bool:
    """Whether ``value_text`` then ``typed_value`` give back ``value`` for a ``kind`` variable."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return value is None or (isinstance(value, int | float) and not isinstance(value, bool))
    if kind == "boolean":
        return value is None or isinstance(value, bool)
    return True


def typed_value(text: str, kind: str | None) -> Any:
    """The value typed for a variable of ``kind``: a number, true/false, text, or JSON-or-text.

    Raises ValueError with the message to show when the text does not fit the variable.
    """
    if kind == "string":
        return text
    text = text.strip()
    if not text:
        return None
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError(_("enter a number")) from None
        return int(number) if number.is_integer() and not re.search(r"[.eE]", text) else number
    if kind == "boolean":
        if text.lower() not in ("true", "false"):
            raise ValueError(_("enter true or false"))
        return text.lower() == "true"
    try:
        return json.loads(text)
    except ValueError:
        return text


class LinesField(forms.CharField):
    """An object typed one ``key = value`` per line (values read as JSON, else as text)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 2, "class": "mono"}))
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> dict[str, Any]:  # type: ignore[override]
        out: dict[str, Any] = {}
        for number, line in enumerate(str(value or "").splitlines(), start=1):
            if not line.strip():
                continue
            key, sep, text = line.partition("=")
            if not sep or not key.strip():
                raise forms.ValidationError(
                    _("Line %(n)s: write it as name = value."), params={"n": number}
                )
            out[key.strip()] = typed_value(text, None)
        return out

    @staticmethod
    def text_of(data: Mapping[str, Any]) -> str | None:
        """The lines for ``data``; None when a key cannot be written on a line."""
        if any(not k.strip() or "=" in k or "\n" in k or k != k.strip() for k in data):
            return None
        return "\n".join(f"{key} = {value_text(value)}" for key, value in data.items())


# --- one row, and the rows of one list ---------------------------------------------------------


class RowForm(forms.Form):
    """One item of a list. ``json_keys`` maps a field to its JSON key where ``to_camel`` errs."""

    json_keys: ClassVar[dict[str, str]] = {}
    blank_fields: ClassVar[tuple[str, ...]] = ()  # all empty: the row is left out

    def __init__(self, *args: Any, pickers: Pickers, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pickers = pickers

    @classmethod
    def key_of(cls, name: str) -> str:
        return cls.json_keys.get(name, to_camel(name))

    def field_for(self, key: str) -> str | None:
        """The field that edits JSON ``key`` (None: the error goes on the row)."""
        names = {self.key_of(name): name for name in self.fields}
        return names.get(key) or (to_snake(key) if to_snake(key) in self.fields else None)

    def is_blank(self) -> bool:
        data = self.cleaned_data
        return not any(str(data.get(name) or "").strip() for name in self.blank_fields)

    def to_item(self, path: str) -> dict[str, Any] | None:
        """The JSON item; None after putting an error (named by ``path``) on a field."""
        raise TypeError(f"{type(self).__name__} must define to_item")

    @classmethod
    def from_item(cls, item: Any, pickers: Pickers) -> dict[str, Any] | None:
        """The row's initial values for a JSON item; None when the row cannot show all of it."""
        raise TypeError(f"{cls.__name__} must define from_item")

    def fail(self, name: str, path: str, message: Any) -> None:
        self.add_error(name, f"{path}.{self.key_of(name)}: {message}")


class RowSet(BaseFormSet):  # type: ignore[type-arg]
    """The rows of one list; ``items()`` is its JSON, ``row(i)`` the row of its item ``i``."""

    path: ClassVar[str] = ""  # the JSON key of the list: "conditions"
    row_prefix: ClassVar[str] = ""  # the form prefix of its rows: "cond" → cond-0-value
    form: type[RowForm]

    def __init__(self, *args: Any, pickers: Pickers, **kwargs: Any) -> None:
        kwargs.setdefault("form_kwargs", {})["pickers"] = pickers
        super().__init__(*args, **kwargs)
        self.kept: list[RowForm] = []

    def items(self) -> list[dict[str, Any]] | None:
        """The JSON list of the rows kept (not blank, not removed); None if a row has an error."""
        if not self.is_valid():
            return None
        out: list[dict[str, Any]] = []
        failed = False
        self.kept = []
        for form in self.forms:
            if form.cleaned_data.get("DELETE") or form.is_blank():
                continue
            item = form.to_item(f"{self.path}[{len(self.kept)}]")
            self.kept.append(form)
            failed = failed or item is None
            out.append(item or {})
        return None if failed else out

    def row(self, index: int) -> RowForm | None:
        return self.kept[index] if 0 <= index < len(self.kept) else None

    @classmethod
    def initial_rows(cls, items: Any, pickers: Pickers) -> list[dict[str, Any]] | None:
        if not isinstance(items, list):
            return None
        rows = [cls.form.from_item(item, pickers) for item in items]
        return None if any(row is None for row in rows) else [r for r in rows if r is not None]


def rowset(form: type[RowForm], path: str, prefix: str) -> type[RowSet]:
    """A formset class of ``form`` rows for the list at ``path``, with one blank row to add."""
    base = type(f"{form.__name__}Set", (RowSet,), {"path": path, "row_prefix": prefix})
    made = formset_factory(
        form, formset=base, extra=1, can_delete=True, max_num=100, validate_max=True
    )
    return cast(type[RowSet], made)


def label_remove(formset: RowSet) -> None:
    for form in [*formset.forms, formset.empty_form]:
        if "DELETE" in form.fields:
            form.fields["DELETE"].label = _("Remove")


# --- conditions --------------------------------------------------------------------------------


class ConditionRow(RowForm):
    variable_id = PickField(label=_("Variable"))
    operator = forms.ChoiceField(
        label=_("Operator"),
        required=False,
        choices=[(o, OPERATOR_LABELS[o]) for o in OPERATORS],
        initial="eq",
    )
    value = forms.CharField(
        label=_("Value"), required=False, strip=False, widget=forms.TextInput(attrs={"size": 12})
    )
    blank_fields = ("variable_id", "value")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        current = str(self["variable_id"].value() or "")
        self.fields["variable_id"].widget.choices = self.pickers.variable_options(current)

    def to_item(self, path: str) -> dict[str, Any] | None:
        data = self.cleaned_data
        target = str(data["variable_id"] or "")
        try:
            value = typed_value(data["value"], self.pickers.kind_of(target))
        except ValueError as exc:
            self.fail("value", path, exc)
            return None
        item: dict[str, Any] = {"variableId": target} if target else {}
        return {**item, "operator": data["operator"], "value": value}

    @classmethod
    def from_item(cls, item: Any, pickers: Pickers) -> dict[str, Any] | None:
        if not isinstance(item, dict) or not set(item) <= {"variableId", "operator", "value"}:
            return None
        target = item.get("variableId")
        kind = pickers.kind_of(target) if isinstance(target, str) else None
        if not isinstance(target, str) or not fits(item.get("value"), kind):
            return None
        value = value_text(item.get("value"), kind)
        return {"variable_id": target, "operator": item.get("operator"), "value": value}


ConditionRows = rowset(ConditionRow, "conditions", "cond")
