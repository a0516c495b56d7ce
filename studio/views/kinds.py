"""What the generic list/create/edit views need to know about one kind of world item."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.functional import Promise

from studio.forms.base import EngineForm
from studio.models import World, WorldItem
from studio.parts import item_to_dict

FormFactory = Callable[..., EngineForm]


def _no_filter(request: HttpRequest, world: World, rows: QuerySet[Any]) -> tuple[Any, Any]:
    return rows, None


@dataclass(frozen=True)
class Kind:
    """One editable list of a world (entries, variables…), as the generic views see it."""

    slug: str  # URL segment and URL-name prefix: "entries" → studio:entries_edit
    model: type[WorldItem]
    form_class: type[EngineForm]
    title: Promise
    singular: Promise
    needs_world: bool = False  # the form's first argument is the world (folder choices…)
    form_template: str = ""  # included for the fields; default: the generic field list
    list_filter: Callable[[HttpRequest, World, QuerySet[Any]], tuple[Any, Any]] = _no_filter
    describe: Callable[[Any], str] = field(default=lambda row: "")
    # Shown above the list (the audio upload form…); its context comes from ``extra_context``.
    extra_template: str = ""
    extra_context: Callable[[World], dict[str, Any]] = field(default=lambda world: {})

    def make_form(self, world: World, data: Any = None, row: WorldItem | None = None) -> EngineForm:
        initial = item_to_dict(row) if row is not None else None
        args: tuple[Any, ...] = (world,) if self.needs_world else ()
        return self.form_class(*args, data=data, initial_data=initial)

    @property
    def names(self) -> dict[str, str]:
        """URL names of the kind's views, for ``{% url kind.names.edit world.pk row.pk %}``."""
        actions = ("new", "edit", "delete", "duplicate", "move", "reorder")
        return {"list": f"studio:{self.slug}", **{a: f"studio:{self.slug}_{a}" for a in actions}}
