"""Built-in UI components (status bars, gauges…) of seed 004 "展示层"."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from studio.forms import ComponentForm
from studio.models import Component
from studio.views.kinds import Kind

COMPONENTS = Kind(
    slug="components",
    model=Component,
    form_class=ComponentForm,
    title=gettext_lazy("Components"),
    singular=gettext_lazy("component"),
    describe=lambda c: f"{c.type} · {c.variable_id}" if c.variable_id else c.type,
)
