"""The rule editor (seed 004 "规则与响应"): WHEN a trigger, IF conditions, THEN actions.

The trigger is a type picker with the fields of each type (the page shows only the chosen
type's fields, studio.css); conditions and actions are rows (studio.forms.rows). The raw JSON of
the three stays one radio away, and is what a rule the form cannot show in full opens with.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from pydantic.alias_generators import to_camel, to_snake

from engine.events import NOTIFICATION_STYLES
from engine.reactions import DIRECTIVE_POSITIONS
from engine.world import ACTION_TYPES, OPERATIONS, TRIGGER_TYPES
from studio.forms.base import ListField, choices, optional_int
from studio.forms.entries import ID_HELP
from studio.forms.logic import (
    condition_logic_field,
    conditions_field,
    json_list_field,
    json_object_field,
)
from studio.forms.rows import (
    ConditionRows,
    Pickers,
    PickField,
    RowForm,
    fits,
    load_pickers,
    rowset,
    typed_value,
    value_text,
)
from studio.forms.structured import StructuredForm
from studio.models import World

TRIGGER_LABELS = {
    "variable-crossed": _("A variable crosses a threshold"),
    "state-change": _("A variable changes"),
    "turn-count": _("At a turn, or every N turns"),
    "session-start": _("The session starts"),
    "keyword": _("The player writes a keyword"),
    "ai-keyword": _("The AI writes a keyword"),
    "every-turn": _("Every turn"),
    "action": _("A custom UI action"),
    "manual": _("Only when another rule fires it"),
}
TRIGGER_FIELDS: dict[str, tuple[str, ...]] = {
    "variable-crossed": ("variable_id", "direction", "threshold"),
    "state-change": ("variable_id",),
    "turn-count": ("at_turn", "every_n_turns"),
    "session-start": (),
    "keyword": ("keywords", "match_whole_words"),
    "ai-keyword": ("keywords", "match_whole_words"),
    "every-turn": (),
    "action": ("action_id",),
    "manual": (),
}
TRIGGER_HINTS = {
    "variable-crossed": _(
        "Fires when the variable goes from one side of the threshold to the other."
    ),
    "state-change": _("Fires when the variable (or any variable) changes value."),
    "turn-count": _("Fires at that turn, and every N turns."),
    "session-start": _("Fires on the first message of a new session."),
    "keyword": _("Fires when the player's message holds a keyword (case-insensitive)."),
    "ai-keyword": _("Fires when the AI's reply holds a keyword (case-insensitive)."),
    "every-turn": _("Fires after every turn."),
    "action": _("Fires when a custom UI button sends this action id."),
    "manual": _(
        "Never fires by itself: a rule's “Turn a rule on” or a reaction emitting rule:fire does."
    ),
}
ACTION_LABELS = {
    "modify-variable": _("Change a variable"),
    "inject-directive": _("Add a directive to the prompt"),
    "remove-directive": _("Remove a directive"),
    "notify-player": _("Notify the player"),
    "play-audio": _("Play audio"),
    "toggle-entry": _("Turn an entry on or off"),
    "toggle-rule": _("Turn a rule on or off"),
    "send-context": _("Send context to the AI once"),
}
ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "modify-variable": ("variable_id", "operation", "value"),
    "inject-directive": ("directive_id", "content", "position", "depth", "persistent", "duration"),
    "remove-directive": ("directive_id",),
    "notify-player": ("message", "style"),
    "play-audio": ("track_id", "audio_action", "value"),
    "toggle-entry": ("entry_id", "enabled"),
    "toggle-rule": ("rule_id", "enabled"),
    "send-context": ("message", "role"),
}
# The trigger's boxes on the rule form: every field any trigger type has, prefixed.
TRIGGER_BOXES = tuple(
    f"trigger_{name}"
    for name in ("type", *dict.fromkeys(n for names in TRIGGER_FIELDS.values() for n in names))
)
_IDS = frozenset({"variable_id", "directive_id", "track_id", "entry_id", "rule_id", "action_id"})
_WHOLE = frozenset({"depth", "duration", "at_turn", "every_n_turns"})
ENABLE = (("true", _("Turn on")), ("false", _("Turn off")))
NO_ACTIONS = _("Actions: add at least one action under “Then”, or the rule does nothing.")


def labelled(values: tuple[str, ...], labels: dict[str, Any]) -> list[tuple[str, Any]]:
    # format_lazy: these choices are built at import, before any language is active
    return [(v, format_lazy("{} ({})", labels[v], v)) for v in values]


def for_classes(name: str, fields: dict[str, tuple[str, ...]]) -> str:
    """``for-keyword for-ai-keyword``: the types whose fields include ``name`` (studio.css)."""
    return " ".join(f"for-{kind}" for kind, names in fields.items() if name in names)


def read_scalar(name: str, raw: Any) -> Any:
    """A number box as JSON (None when empty); ValueError with the message otherwise."""
    text = str(raw or "").strip()
    if not text:
        return None
    if name in _WHOLE:
        try:
            return int(text)
        except ValueError:
            raise ValueError(_("enter a whole number")) from None
    return typed_value(text, "number")


def number_text(value: Any) -> Any:
    """20.0 as 20: the threshold is a float in the JSON, a plain number in the box."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def number_box(label: Any, **attrs: Any) -> forms.CharField:
    widget = forms.NumberInput(attrs={"step": "any", **attrs})
    return forms.CharField(label=label, required=False, widget=widget)


def id_box(label: Any, datalist: str) -> forms.CharField:
    widget = forms.TextInput(attrs={"list": datalist, "autocomplete": "off"})
    return forms.CharField(label=label, required=False, max_length=300, widget=widget)


class ActionRow(RowForm):
    type = forms.ChoiceField(
        label=_("Do"), choices=labelled(ACTION_TYPES, ACTION_LABELS), initial=ACTION_TYPES[0]
    )
    variable_id = id_box(_("Variable (or a path in it)"), "fabula-variables")
    operation = forms.ChoiceField(
        label=_("Operation"), required=False, choices=choices(OPERATIONS), initial="set"
    )
    value = forms.CharField(label=_("Value"), required=False, strip=False)
    directive_id = forms.CharField(label=_("Directive id"), required=False, max_length=300)
    content = forms.CharField(
        label=_("Directive text"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    position = forms.ChoiceField(
        label=_("Position"), required=False, choices=choices(DIRECTIVE_POSITIONS), initial="auto"
    )
    depth = number_box(_("Depth"), min=0, step=1)
    persistent = forms.BooleanField(label=_("Persistent (until removed)"), required=False)
    duration = number_box(_("Duration (turns)"), min=1, step=1)
    message = forms.CharField(
        label=_("Message"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    style = forms.ChoiceField(
        label=_("Style"), required=False, choices=choices(NOTIFICATION_STYLES), initial="info"
    )
    track_id = id_box(_("Track"), "fabula-tracks")
    audio_action = forms.ChoiceField(
        label=_("Audio action"),
        required=False,
        choices=choices(("play", "stop", "crossfade", "volume")),
        initial="play",
    )
    entry_id = id_box(_("Entry"), "fabula-entries")
    rule_id = id_box(_("Rule"), "fabula-rules")
    enabled = forms.ChoiceField(label=_("Turn"), required=False, choices=ENABLE, initial="true")
    role = forms.ChoiceField(
        label=_("As"), required=False, choices=choices(("system", "user")), initial="system"
    )

    json_keys: ClassVar[dict[str, str]] = {"audio_action": "action"}
    blank_fields = (*sorted(_IDS - {"action_id"}), "value", "content", "message")

    def typed_fields(self) -> list[tuple[forms.BoundField, str]]:
        skip = ("type", "DELETE")
        return [(self[n], for_classes(n, ACTION_FIELDS)) for n in self.fields if n not in skip]

    def to_item(self, path: str) -> dict[str, Any] | None:
        data = self.cleaned_data
        kind = data["type"]
        item: dict[str, Any] = {"type": kind}
        failed = False
        for name in ACTION_FIELDS[kind]:
            raw, key = data.get(name), self.key_of(name)
            try:
                if name in _IDS:
                    if str(raw or "").strip():
                        item[key] = str(raw).strip()
                elif name == "value":
                    target = str(data.get("variable_id") or "").strip()
                    kind_of = "number" if kind == "play-audio" else self.pickers.kind_of(target)
                    item[key] = typed_value(str(raw or ""), kind_of)
                elif name in _WHOLE:
                    item[key] = read_scalar(name, raw)
                else:
                    item[key] = raw == "true" if name == "enabled" else raw
            except ValueError as exc:
                self.fail(name, path, exc)
                failed = True
        return None if failed else item

    @classmethod
    def from_item(cls, item: Any, pickers: Pickers) -> dict[str, Any] | None:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind not in ACTION_FIELDS:
            return None
        names = ACTION_FIELDS[kind]
        if not set(item) <= {"type", *(cls.key_of(n) for n in names)}:
            return None
        row: dict[str, Any] = {"type": kind}
        for name in names:
            value = item.get(cls.key_of(name))
            if name == "value":
                target = str(item.get("variableId") or "")
                kind_of = "number" if kind == "play-audio" else pickers.kind_of(target)
                if not fits(value, kind_of):
                    return None
                row[name] = value_text(value, kind_of)
            elif name == "enabled":
                row[name] = "false" if value is False else "true"
            elif value is not None:
                row[name] = value
        return row


ActionRows = rowset(ActionRow, "actions", "act")


class RuleForm(StructuredForm):
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

    trigger_type = forms.ChoiceField(
        label=_("Trigger"), required=False, choices=labelled(TRIGGER_TYPES, TRIGGER_LABELS)
    )
    trigger_variable_id = PickField(
        label=_("Variable"), help_text=_("For “a variable changes”: empty means any variable.")
    )
    trigger_direction = forms.ChoiceField(
        label=_("Direction"),
        required=False,
        choices=(("drops-below", _("drops below")), ("rises-above", _("rises above"))),
    )
    trigger_threshold = number_box(_("Threshold"))
    trigger_at_turn = number_box(_("At turn"), step=1)
    trigger_every_n_turns = number_box(_("Every N turns"), min=1, step=1)
    trigger_keywords = ListField(label=_("Keywords"), help_text=_("Comma separated; any one."))
    trigger_match_whole_words = forms.BooleanField(label=_("Match whole words"), required=False)
    trigger_action_id = forms.CharField(
        label=_("Action id"),
        required=False,
        max_length=300,
        help_text=_("The id a custom UI button sends."),
    )

    trigger = json_object_field(
        _("Trigger (JSON)"), _('e.g. {"type": "keyword", "keywords": ["tavern"]}'), rows=5
    )
    conditions = conditions_field()
    actions = json_list_field(
        _("Actions (JSON)"),
        _('e.g. [{"type": "notify-player", "style": "info", "message": "Hello"}]'),
        rows=8,
    )

    json_parts = ("trigger", "conditions", "actions")
    structured_fields = TRIGGER_BOXES

    def __init__(self, world: World | None = None, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("pickers", load_pickers(world) if world is not None else None)
        super().__init__(*args, **kwargs)
        current = str(self["trigger_variable_id"].value() or "")
        self.fields["trigger_variable_id"].widget.choices = self.pickers.variable_options(current)

    @classmethod
    def new_item(cls) -> dict[str, Any]:
        return {"trigger": {"type": "every-turn"}}

    def fill(self, source: dict[str, Any]) -> bool:
        shown = self.add_rows("conditions", ConditionRows, source.get("conditions"))
        shown = self.add_rows("actions", ActionRows, source.get("actions")) and shown
        trigger = source.get("trigger")
        kind = trigger.get("type") if isinstance(trigger, dict) else None
        if not isinstance(trigger, dict) or kind not in TRIGGER_FIELDS:
            return False
        names = TRIGGER_FIELDS[kind]
        self.initial["trigger_type"] = kind
        for name in names:
            value = trigger.get(to_camel(name))
            if value is not None:
                self.initial[f"trigger_{name}"] = (
                    number_text(value) if name == "threshold" else value
                )
        return shown and set(trigger) <= {"type", *(to_camel(n) for n in names)}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if not self.rows_failed and "actions" not in self.errors and not cleaned.get("actions"):
            self.add_error(None, NO_ACTIONS)
        return cleaned

    def trigger_hints(self) -> list[tuple[str, Any]]:
        return list(TRIGGER_HINTS.items())

    def trigger_fields(self) -> list[tuple[forms.BoundField, str]]:
        names = [n for n in self.structured_fields if n != "trigger_type"]
        return [(self[n], for_classes(n.removeprefix("trigger_"), TRIGGER_FIELDS)) for n in names]

    def structured(self) -> dict[str, Any] | None:
        trigger = self._trigger()
        conditions = self.rows_json("conditions")
        actions = self.rows_json("actions")
        if trigger is None or conditions is None or actions is None:
            return None
        return {"trigger": trigger, "conditions": conditions, "actions": actions}

    def _trigger(self) -> dict[str, Any] | None:
        data = self.cleaned_data
        kind = str(data.get("trigger_type") or "")
        trigger: dict[str, Any] = {"type": kind} if kind else {}
        failed = False
        for name in TRIGGER_FIELDS.get(kind, ()):
            raw, key = data.get(f"trigger_{name}"), to_camel(name)
            if name in _IDS:
                if str(raw or "").strip():
                    trigger[key] = str(raw).strip()
            elif name in ("threshold", *_WHOLE):
                try:
                    value = read_scalar(name, raw)
                except ValueError as exc:
                    self.add_error(f"trigger_{name}", f"trigger.{key}: {exc}")
                    failed = True
                    continue
                if value is not None:
                    trigger[key] = value
            else:
                trigger[key] = raw
        return None if failed else trigger

    def place_error(self, line: str) -> bool:
        path = line.partition(": ")[0]
        if not (path == "trigger" or path.startswith("trigger.")):
            return super().place_error(line)
        name = f"trigger_{to_snake(path.removeprefix('trigger').lstrip('.').split('.')[0])}"
        self.add_error(name if name in self.structured_fields else "trigger_type", line)
        return True
