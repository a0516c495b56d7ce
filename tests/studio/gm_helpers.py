"""Helpers of the game-master editor tests: the demo world, and a form's page as POST data."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from django import forms
from django.http import QueryDict

DEMO = Path(__file__).resolve().parents[2] / "studio" / "fixtures" / "gm_demo_world.json"


@cache
def _demo() -> dict[str, Any]:
    return json.loads(DEMO.read_text(encoding="utf-8"))


def demo_data() -> dict[str, Any]:
    """A fresh copy of the demo world (Brackenford) JSON."""
    return copy.deepcopy(_demo())


def small_block() -> dict[str, Any]:
    """A gameMaster block with two joined places, an NPC with a secret and a character."""
    return {
        "locations": [
            {"id": "hall", "name": "The Hall", "exits": [{"direction": "north", "to": "yard"}]},
            {"id": "yard", "name": "The Yard", "exits": [{"direction": "south", "to": "hall"}]},
        ],
        "npcs": [
            {
                "id": "mara",
                "name": "Mara",
                "trade": "cook",
                "location": "hall",
                "secret": {"text": "Mara poisoned the old lord.", "tellsTo": "nobody alive"},
            }
        ],
        "items": [{"id": "ladle", "name": "a ladle", "at": {"npc": "mara"}}],
        "characters": [{"id": "tom", "name": "Tom", "location": "yard"}],
    }


def as_post(form: Any) -> dict[str, Any]:
    """What the browser would send for ``form`` (a GMForm) as rendered, rows and all (a dict
    the test client posts: a list is a field sent several times)."""
    data = QueryDict(mutable=True)
    _fields(data, form)
    for rows in getattr(form, "row_sets", {}).values():
        for key, value in rows.management_form.initial.items():
            data[rows.management_form.add_prefix(key)] = str(value)
        for row in rows.forms:
            _fields(data, row)
    return {key: values if len(values) != 1 else values[0] for key, values in data.lists()}


def _fields(data: QueryDict, form: Any) -> None:
    for bound in form:
        value = bound.value()
        if isinstance(bound.field.widget, forms.CheckboxInput):
            if value:
                data[bound.html_name] = "on"
        elif isinstance(bound.field, forms.MultipleChoiceField):
            data.setlist(bound.html_name, [str(v) for v in value or []])
        else:
            shown = bound.field.prepare_value(value)
            data[bound.html_name] = "" if shown is None else str(shown)
