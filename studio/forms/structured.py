"""Editor forms whose lists and objects are edited as rows or as the raw JSON (``editor``).

The creator picks a side with the ``editor`` radio; only that side is read. An item the rows
cannot show in full (a key the form has no box for) opens on the raw JSON side, so nothing is
lost. The engine stays the only validator: its ``conditions[1].variableId: …`` errors are put
on the row field they name, with the path.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext_lazy as _

from studio.forms.base import EngineForm
from studio.forms.rows import Pickers, RowSet, label_remove
from studio.messages import translated_line

EDITORS = (("form", _("Form")), ("json", _("Raw JSON")))
_INDEX = re.compile(r"^(\w+)\[(\d+)\](?:\.(\w+))?")


def _lenient(field: forms.Field) -> forms.CharField:
    """The same box, kept as typed: the side of the editor not in use is not read."""
    return forms.CharField(
        required=False, label=field.label, help_text=field.help_text, widget=field.widget
    )


class StructuredForm(EngineForm):
    """An editor form whose lists and objects are edited as rows or as raw JSON (``editor``).

    Subclasses name their raw JSON boxes in ``json_parts`` and their row-side fields in
    ``structured_fields``; ``fill`` sets the rows from the item's JSON (telling whether they
    show all of it) and ``structured`` reads them back as the values of the JSON boxes.
    """

    json_parts: ClassVar[tuple[str, ...]] = ()
    structured_fields: ClassVar[tuple[str, ...]] = ()
    carried: ClassVar[tuple[str, ...]] = ()  # other fields the parts depend on (a variable's type)

    editor = forms.ChoiceField(
        label=_("Edit with"), choices=EDITORS, required=False, widget=forms.RadioSelect
    )
    editor_note: Any = ""  # why a switch to the form editor stayed on raw JSON

    def __init__(
        self, *args: Any, pickers: Pickers | None = None, editor: str | None = None, **kwargs: Any
    ) -> None:
        if kwargs.get("initial_data") is None:
            kwargs["initial_data"] = self.new_item()
        source = dict(kwargs["initial_data"])
        super().__init__(*args, **kwargs)
        self.pickers = pickers or Pickers()
        self.rowsets: dict[str, RowSet] = {}
        self.saved: dict[str, list[Any]] = {}  # each list as it was, for a post without its rows
        self.rows_failed = False
        self.shows_all = self.fill(source)
        if not self.is_bound:
            self.initial["editor"] = editor or ("form" if self.shows_all else "json")
        self.mode = self._mode()
        if self.is_bound:  # only the side in use is read, so only it can have errors
            unread = self.json_parts if self.mode == "form" else self.structured_fields
            for name in unread:
                self.fields[name] = _lenient(self.fields[name])

    # --- for subclasses ---

    @classmethod
    def new_item(cls) -> dict[str, Any]:
        return {}

    def fill(self, source: dict[str, Any]) -> bool:
        return True

    def structured(self) -> dict[str, Any] | None:
        return {}

    # --- the machinery ---

    def _mode(self) -> str:
        if not self.is_bound:
            return str(self.initial.get("editor") or "form")
        chosen = self.data.get("editor")
        if chosen in ("form", "json"):
            return str(chosen)
        return "json" if any(name in self.data for name in self.json_parts) else "form"

    def add_rows(self, path: str, kind: type[RowSet], items: Any) -> bool:
        """Make the rows of the list at ``path``; tell whether they show every item of it."""
        rows = kind.initial_rows(items if items is not None else [], self.pickers)
        # A post without these rows (an older client, a raw JSON one) leaves them as saved.
        posted = self.is_bound and f"{kind.row_prefix}-TOTAL_FORMS" in self.data
        data = self.data if posted else None
        formset = kind(data, initial=rows or [], prefix=kind.row_prefix, pickers=self.pickers)
        label_remove(formset)
        self.rowsets[path] = formset
        self.saved[path] = copy.deepcopy(items) if isinstance(items, list) else []
        return rows is not None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.mode == "form":
            parts = self.structured()
            if parts is None:
                self.rows_failed = True
            else:
                cleaned.update(parts)
        return cleaned

    def is_valid(self) -> bool:
        return super().is_valid() and not self.rows_failed

    def to_data(self) -> dict[str, Any]:
        data = super().to_data()
        for name in ("editor", *self.structured_fields):
            data.pop(self.json_key(name), None)
        return data

    def logic_data(self) -> dict[str, Any] | None:
        """The parts the editor switch redraws, read from the side in use; None on their errors.

        Errors of the other fields (an empty priority…) do not matter here: nothing is saved.
        """
        self.is_valid()
        if self.rows_failed or set(self.errors) & {*self.json_parts, *self.structured_fields}:
            return None
        names = (*self.json_parts, *self.carried)
        return {self.json_key(name): self.cleaned_data.get(name) for name in names}

    def add_engine_errors(self, errors: Iterable[str]) -> None:
        lines = [translated_line(line) for line in errors]
        rest = [line for line in lines if self.mode != "form" or not self.place_error(line)]
        super().add_engine_errors(rest)

    def place_error(self, line: str) -> bool:
        """Put an engine error on the row field it names; False when no row takes it."""
        path = line.partition(": ")[0]
        match = _INDEX.match(path)
        formset = self.rowsets.get(match.group(1)) if match else None
        row = formset.row(int(match.group(2))) if formset is not None and match else None
        if row is None or match is None:
            return False
        row.add_error(row.field_for(match.group(3) or ""), line)
        self.rows_failed = True
        return True

    def rows_json(self, path: str) -> list[dict[str, Any]] | None:
        formset = self.rowsets[path]
        return formset.items() if formset.is_bound else self.saved[path]

    def datalists(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """The ``<datalist>`` suggestions of the id boxes, by list id."""
        pickers = self.pickers
        return [
            ("fabula-variables", [(k, name) for k, (name, _kind) in pickers.variables.items()]),
            ("fabula-entries", pickers.entries),
            ("fabula-rules", pickers.rules),
            ("fabula-tracks", pickers.tracks),
        ]
