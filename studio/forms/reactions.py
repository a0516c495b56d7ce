"""The reaction editor (seed 004 "Reactions"): WHEN an event pattern, IF conditions, THEN effects.

The pattern is an event type plus ``field = value`` lines the event must carry; effects are rows
of ``set`` (a variable or an ``@`` system path) and ``emit`` (an event type and its fields).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from engine.events import (
    ACTION,
    MESSAGE_AI,
    MESSAGE_USER,
    RULE_FIRE,
    SESSION_START,
    STATE_CHANGED,
    TURN_COMPLETE,
)
from engine.world import OPERATIONS
from studio.forms.base import choices
from studio.forms.entries import ID_HELP
from studio.forms.logic import (
    condition_logic_field,
    conditions_field,
    json_list_field,
    json_object_field,
)
from studio.forms.rows import (
    ConditionRows,
    LinesField,
    Pickers,
    RowForm,
    fits,
    load_pickers,
    rowset,
    typed_value,
    value_text,
)
from studio.forms.rules import for_classes, id_box
from studio.forms.structured import StructuredForm
from studio.models import World

EVENT_TYPES = (
    MESSAGE_USER,
    MESSAGE_AI,
    TURN_COMPLETE,
    STATE_CHANGED,
    SESSION_START,
    ACTION,
    RULE_FIRE,
)
SYSTEM_PATHS = (
    "@audio.bgm",
    "@audio.sfx",
    "@audio.ambient",
    "@audio.stop",
    "@prompt.context",
    "@ai.context",
    "@ai.request",
    "@ui.notification",
)
EFFECT_FIELDS: dict[str, tuple[str, ...]] = {
    "set": ("path", "operation", "value"),
    "emit": ("event_type", "event_fields"),
}
EFFECT_LABELS = {"set": _("Set a variable or system path"), "emit": _("Emit an event")}
FIELDS_HELP = _("One per line: zone = forest (values are JSON, or plain text).")


def paths_offered(pickers: Pickers) -> list[str]:
    """What the path box suggests: variables, system paths, and the per-id ones of this world."""
    return [
        *pickers.variables,
        *SYSTEM_PATHS,
        *(f"@prompt.entry.{key}" for key, _name in pickers.entries),
        *(f"@rules.disabled.{key}" for key, _name in pickers.rules),
    ]


def event_box(label: Any) -> forms.CharField:
    return id_box(label, "fabula-events")


class EffectRow(RowForm):
    type = forms.ChoiceField(
        label=_("Do"),
        choices=[(k, format_lazy("{} ({})", v, k)) for k, v in EFFECT_LABELS.items()],
        initial="set",
    )
    path = id_box(_("Path"), "fabula-paths")
    operation = forms.ChoiceField(
        label=_("Operation"), required=False, choices=choices(OPERATIONS), initial="set"
    )
    value = forms.CharField(label=_("Value"), required=False, strip=False)
    event_type = event_box(_("Event type"))
    event_fields = LinesField(label=_("Event fields"), help_text=FIELDS_HELP)
    blank_fields = ("path", "value", "event_type", "event_fields")

    def typed_fields(self) -> list[tuple[forms.BoundField, str]]:
        skip = ("type", "DELETE")
        return [(self[n], for_classes(n, EFFECT_FIELDS)) for n in self.fields if n not in skip]

    def to_item(self, path: str) -> dict[str, Any] | None:
        data = self.cleaned_data
        if data["type"] == "emit":
            event = {"type": str(data["event_type"] or "").strip(), **data["event_fields"]}
            return {"type": "emit", "event": event}
        target = str(data["path"] or "").strip()
        kind = None if target.startswith("@") else self.pickers.kind_of(target)
        try:
            value = typed_value(data["value"], kind)
        except ValueError as exc:
            self.fail("value", path, exc)
            return None
        item: dict[str, Any] = {"type": "set", "path": target} if target else {"type": "set"}
        return {**item, "value": value, "operation": data["operation"]}

    @classmethod
    def from_item(cls, item: Any, pickers: Pickers) -> dict[str, Any] | None:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "emit" and set(item) <= {"type", "event"}:
            event = item.get("event")
            if not isinstance(event, dict) or not isinstance(event.get("type", ""), str):
                return None
            lines = LinesField.text_of({k: v for k, v in event.items() if k != "type"})
            row = {"type": "emit", "event_type": event.get("type", ""), "event_fields": lines}
            return None if lines is None else row
        if kind != "set" or not set(item) <= {"type", "path", "value", "operation"}:
            return None
        target = str(item.get("path") or "")
        value_kind = None if target.startswith("@") else pickers.kind_of(target)
        if not fits(item.get("value"), value_kind):
            return None
        value = value_text(item.get("value"), value_kind)
        operation = item.get("operation", "set")
        return {"type": "set", "path": target, "value": value, "operation": operation}


EffectRows = rowset(EffectRow, "then", "eff")


class ReactionForm(StructuredForm):
    id = forms.CharField(label=_("ID"), required=False, max_length=120, help_text=ID_HELP)
    name = forms.CharField(label=_("Name"), required=False, max_length=300)
    enabled = forms.BooleanField(label=_("Enabled"), required=False, initial=True)
    condition_logic = condition_logic_field()

    when_event_type = event_box(_("When this event happens"))
    when_fields = LinesField(label=_("…and it carries"), help_text=FIELDS_HELP)

    when = json_object_field(
        _("When (event pattern, JSON)"), _('e.g. {"eventType": "message:user"}'), rows=4
    )
    conditions = conditions_field()
    then = json_list_field(
        _("Then (effects, JSON)"),
        _('e.g. [{"type": "set", "path": "weather", "value": "foggy"}]'),
        rows=8,
    )

    json_parts = ("when", "conditions", "then")
    structured_fields = ("when_event_type", "when_fields")

    def __init__(self, world: World | None = None, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("pickers", load_pickers(world) if world is not None else None)
        super().__init__(*args, **kwargs)

    @classmethod
    def new_item(cls) -> dict[str, Any]:
        return {"when": {"eventType": "turn:complete"}}

    def fill(self, source: dict[str, Any]) -> bool:
        shown = self.add_rows("conditions", ConditionRows, source.get("conditions"))
        shown = self.add_rows("then", EffectRows, source.get("then")) and shown
        when = source.get("when")
        if not isinstance(when, dict) or not isinstance(when.get("eventType", ""), str):
            return False
        lines = LinesField.text_of({k: v for k, v in when.items() if k != "eventType"})
        self.initial["when_event_type"] = when.get("eventType", "")
        self.initial["when_fields"] = lines or ""
        return shown and lines is not None

    def structured(self) -> dict[str, Any] | None:
        conditions = self.rows_json("conditions")
        then = self.rows_json("then")
        if conditions is None or then is None or "when_fields" in self.errors:
            return None
        event_type = str(self.cleaned_data.get("when_event_type") or "").strip()
        when = {"eventType": event_type} if event_type else {}
        when.update(self.cleaned_data.get("when_fields") or {})
        return {"when": when, "conditions": conditions, "then": then}

    def datalists(self) -> list[tuple[str, list[tuple[str, str]]]]:
        events = [(kind, "") for kind in EVENT_TYPES]
        paths = [(path, "") for path in paths_offered(self.pickers)]
        return [*super().datalists(), ("fabula-events", events), ("fabula-paths", paths)]

    def place_error(self, line: str) -> bool:
        path = line.partition(": ")[0]
        if path == "when" or path.startswith("when."):
            name = "when_event_type" if path in ("when", "when.eventType") else "when_fields"
            self.add_error(name, line)
            return True
        return super().place_error(line)
