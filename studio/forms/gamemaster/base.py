"""Form pieces of the game-master editor: id pickers, composite values, rows, engine errors.

A ``GMForm`` edits one record of the ``gameMaster`` block. Its field names spell the JSON path
(``secret__text`` is ``secret.text``; ``json_keys`` overrides where ``to_camel`` cannot, as for
``full.class``). Lists of small objects (exits, points, schedule slots, requirements…) are rows:
a formset per list, with blank rows to add and a delete box per row, so the page works without
JavaScript. The engine stays the only validator: pickers accept any value, so a reference to a
missing thing reaches the linter and comes back as its ``path: message``, put on the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from django import forms
from django.forms import BaseFormSet, formset_factory
from django.utils.translation import gettext_lazy as _
from pydantic.alias_generators import to_camel

from studio.forms.gamemaster.catalog import CHECKS, Catalog
from studio.forms.gamemaster.fields import (
    NONE,
    HolderField,
    LinesField,
    PickField,
    PicksField,
    PlaceField,
    WordsField,
    choose,
    line,
    number,
    text,
)

__all__ = [
    "CHECKS",
    "Catalog",
    "GMForm",
    "HolderField",
    "LinesField",
    "PickField",
    "PicksField",
    "PlaceField",
    "WordsField",
    "choose",
    "line",
    "number",
    "text",
]

_STEP = re.compile(r"\.|(?=\[)")
_INDEX = re.compile(r"^\[(\d+)\]$")


# --- the record form ----------------------------------------------------------------------


class GMForm(forms.Form):
    """One record (or one row) of the block, as world JSON; engine errors land on its fields."""

    json_keys: ClassVar[dict[str, str]] = {}
    # Fields made at runtime (one per trust level, per ability): their cleaned value stays
    # under the field's own name for ``finish`` to fold into the JSON.
    local_prefixes: ClassVar[tuple[str, ...]] = ()
    rows: ClassVar[dict[str, tuple[type[GMForm], Any]]] = {}  # JSON list → (row form, title)
    required_css_class = "required"

    def __init__(
        self,
        data: Any = None,
        *,
        catalog: Catalog,
        record: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if record is not None:
            kwargs["initial"] = self.initial_from(record)
        super().__init__(data, **kwargs)
        self.catalog = catalog
        self._fill_choices()
        self.row_sets: dict[str, BaseFormSet[Any]] = {}
        for key, (row_form, _title) in self.rows.items():
            self.row_sets[key] = _row_set(key, row_form, data, (record or {}).get(key), catalog)
        self.kept_rows: dict[str, list[GMForm]] = {}

    @classmethod
    def json_path(cls, name: str) -> str:
        if name.startswith(cls.local_prefixes) and cls.local_prefixes:
            return name
        return cls.json_keys.get(name) or ".".join(to_camel(part) for part in name.split("__"))

    @classmethod
    def initial_from(cls, record: Mapping[str, Any]) -> dict[str, Any]:
        """Form initial values from the record's JSON (camelCase keys)."""
        initial: dict[str, Any] = {}
        for name, bound in cls.base_fields.items():
            if getattr(bound, "spread", False):
                initial[name] = bound.encode(record)  # type: ignore[attr-defined]
                continue
            value: Any = record
            for step in cls.json_path(name).split("."):
                value = value.get(step) if isinstance(value, Mapping) else None
            if value is not None or isinstance(bound, PickField):
                initial[name] = bound.encode(value) if isinstance(bound, PickField) else value
        return initial

    def _fill_choices(self) -> None:
        for name, bound in self.fields.items():
            if not isinstance(bound, PickField | PicksField):
                continue
            options = list(self.catalog.options.get(bound.source, []))
            known = {value for value, _label in options}
            for value in self._current(name):
                if value and value not in known:
                    known.add(value)
                    options.append((value, f"{value} ({_('missing')})"))
            blank = [NONE] if isinstance(bound, PickField) and bound.blank else []
            bound.choices = [*blank, *options]

    @property
    def row_groups(self) -> list[tuple[str, Any, BaseFormSet[Any]]]:
        """(JSON list, title, formset) of each list of rows, for the template."""
        return [(key, self.rows[key][1], rows) for key, rows in self.row_sets.items()]

    def _current(self, name: str) -> list[Any]:
        """The values shown for ``name``: posted ones when bound, else the initial ones."""
        if self.is_bound:
            key = self.add_prefix(name)
            return (
                list(self.data.getlist(key))
                if hasattr(self.data, "getlist")
                else [self.data.get(key)]
            )
        value = self.initial.get(name)
        return list(value) if isinstance(value, list) else [value]

    def is_valid(self) -> bool:
        valid = super().is_valid()
        return all([valid, *(rows.is_valid() for rows in self.row_sets.values())])

    def to_data(self) -> dict[str, Any]:
        """The cleaned data as the record's JSON; rows as lists, blank and deleted rows left out."""
        data: dict[str, Any] = {}
        for name, value in self.cleaned_data.items():
            if name == "DELETE":
                continue
            bound = self.fields[name]
            value = bound.decode(value) if isinstance(bound, PickField) else value
            if getattr(bound, "spread", False):
                data.update(value)
                continue
            *parents, leaf = self.json_path(name).split(".")
            node = data
            for step in parents:
                node = node.setdefault(step, {})
            node[leaf] = value
        for key, rows in self.row_sets.items():
            kept = [f for f in rows.forms if _kept(rows, f)]
            self.kept_rows[key] = kept
            data[key] = [f.to_data() for f in kept]
        return self.finish(data)

    def finish(self, data: dict[str, Any]) -> dict[str, Any]:
        """Last touches of the JSON (an empty secret is no secret…); subclasses override."""
        return data

    # --- engine errors back on the fields ------------------------------------------------

    def add_engine_errors(self, errors: Iterable[str], prefix: str = "") -> list[str]:
        """Put each ``prefix<path>: message`` on the field it names; return the lines no field
        of this form takes (shown above the form, path and all)."""
        left = []
        for error in errors:
            path, _sep, message = error.partition(": ")
            mine = path.startswith(prefix) or path == prefix.rstrip(".")
            if not (mine and self.place_error(path[len(prefix) :], message)):
                left.append(error)
        return left

    def place_error(self, path: str, message: str) -> bool:
        steps = [s for s in _STEP.split(path) if s]
        if not steps:  # about the record itself; a duplicate id belongs on the id
            self.add_error(
                "id" if message.startswith("duplicate id") and "id" in self.fields else None,
                message,
            )
            return True
        if steps[0] in self.row_sets and len(steps) > 1 and (m := _INDEX.match(steps[1])):
            kept = self.kept_rows.get(steps[0]) or list(self.row_sets[steps[0]].forms)
            index = int(m.group(1))
            if index >= len(kept):
                return False
            rest = ".".join(steps[2:]).replace(".[", "[")
            if not kept[index].place_error(rest, message):
                kept[index].add_error(None, f"{rest}: {message}")
            return True
        name = self.field_name_for(".".join(steps).replace(".[", "["))
        if name is None:
            return False
        self.add_error(name, message)
        return True

    @classmethod
    def field_name_for(cls, path: str) -> str | None:
        """The field that edits ``path`` (or the closest enclosing one), None when none does."""
        paths = {cls.json_path(n): n for n in cls.base_fields}
        spread = [n for n, f in cls.base_fields.items() if getattr(f, "spread", False)]
        probe = re.sub(r"\[\d+\]", "", path)
        while probe:
            if probe in paths:
                return paths[probe]
            if spread and probe in ("location", "point"):
                return spread[0]
            if "." not in probe:
                return None
            probe = probe.rpartition(".")[0]
        return None

    @classmethod
    def anchor_for(cls, path: str) -> str:
        """The id of the input that edits ``path`` (links from the problem list), or ""."""
        steps = [s for s in _STEP.split(path) if s]
        if steps and steps[0] in cls.rows and len(steps) > 1 and (m := _INDEX.match(steps[1])):
            row_form = cls.rows[steps[0]][0]
            name = row_form.field_name_for(".".join(steps[2:]).replace(".[", "["))
            return f"id_{steps[0]}-{m.group(1)}-{name}" if name else f"rows-{steps[0]}"
        name = cls.field_name_for(path)
        return f"id_{name}" if name else ""


def _kept(rows: BaseFormSet[Any], form: forms.Form) -> bool:
    if not hasattr(form, "cleaned_data") or form in rows.deleted_forms:
        return False
    return not (form.empty_permitted and not form.has_changed())


def _row_set(
    key: str, row_form: type[GMForm], data: Any, values: Any, catalog: Catalog
) -> BaseFormSet[Any]:
    factory = formset_factory(row_form, extra=1, can_delete=True)
    initial = [row_form.initial_from(v) for v in values or [] if isinstance(v, Mapping)]
    return factory(data, prefix=key, initial=initial or None, form_kwargs={"catalog": catalog})
