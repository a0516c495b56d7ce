"""Forms of progress and dealings (seed 001 "Progreso", "Tratos"): clues and what it takes to
get them, errands, notice boards, shops, debts, pawned items, hooks and rumours."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from engine.gm.vocab import TIMES_OF_DAY, TRUST_LEVELS
from studio.forms.gamemaster.base import (
    CHECKS,
    GMForm,
    HolderField,
    PickField,
    PicksField,
    PlaceField,
    WordsField,
    choose,
    line,
    number,
    text,
)

REQUIREMENTS = ("trust", "item", "check", "condition", "clue")
OPERATORS = ("eq", "neq", "gt", "lt", "gte", "lte", "contains")
# What each requirement type keeps of the row (the rest belongs to the other types).
_NEEDS = {
    "trust": ("npc", "atLeast"),
    "item": ("item",),
    "check": ("check", "dc"),
    "condition": ("variableId", "operator", "value"),
    "clue": ("clue",),
}


class RequirementRow(GMForm):
    type = choose(REQUIREMENTS, label=_("Needs"))
    npc = PickField("npcs", label=_("NPC"))
    at_least = choose(TRUST_LEVELS, blank=True, label=_("Trust at least"))
    item = PickField("items", label=_("Item held"))
    check = choose(CHECKS, blank=True, label=_("Check"))
    dc = forms.IntegerField(label=_("DC"), required=False, min_value=5, max_value=30)
    variable_id = PickField("variables", label=_("Variable"))
    operator = choose(OPERATORS, blank=True, label=_("Operator"))
    value = line(label=_("Value"), help_text=_('JSON: 3, "open", true'))
    clue = PickField("clues", label=_("Other clue"))

    def clean_value(self) -> Any:
        raw = self.cleaned_data.get("value") or ""
        if not raw.strip():
            return None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw  # a bare word is a string

    @classmethod
    def initial_from(cls, record: Any) -> dict[str, Any]:
        initial = super().initial_from(record)
        if "value" in record:
            initial["value"] = json.dumps(record["value"], ensure_ascii=False)
        return initial

    def finish(self, data: dict[str, Any]) -> dict[str, Any]:
        kind = data.get("type") or "trust"
        return {"type": kind, **{k: data.get(k) for k in _NEEDS.get(kind, ())}}


class AnchorField(HolderField):
    """``location:x`` or ``npc:y``; blank is a clue anchored to nothing (the engine says so)."""

    def decode(self, value: Any) -> Any:
        if not value:
            return {}
        kind, _sep, ident = str(value).partition(":")
        return {kind: ident}


class ClueForm(GMForm):
    id = line(label=_("Id"), help_text=_("kebab-case; made from the name when left blank"))
    name = line(label=_("Name"), required=True)
    text = text(3, label=_("Text"), help_text=_("What the character learns."))
    anchor = AnchorField("anchors", blank=False, label=_("Anchored to"))
    rows = {"requires": (RequirementRow, _("Requirements"))}


class QuestForm(GMForm):
    id = line(label=_("Id"), help_text=_("kebab-case; made from the title when left blank"))
    title = line(label=_("Title"), required=True)
    summary = line(label=_("Summary"), help_text=_("The one line of the scene context."))
    description = text(3, label=_("Description"))
    owner = PickField("npcs", label=_("Owner"))
    offered_by = PickField("npcs", label=_("Offered by"))


class NoticeRow(GMForm):
    id = line(label=_("Id"), required=True)
    title = line(label=_("Title"), required=True)
    summary = line(label=_("Summary"))
    owner = PickField("npcs", label=_("Owner"))
    quest = PickField("quests", label=_("Errand"))


class BoardForm(GMForm):
    id = line(label=_("Id"), help_text=_("kebab-case; made from the name when left blank"))
    name = line(label=_("Name"), initial="notice board", required=True)
    aliases = WordsField(label=_("Aliases"))
    place = PlaceField(spread=True, blank=False, label=_("Hangs at"))
    rows = {"notices": (NoticeRow, _("Notices"))}


class StockRow(GMForm):
    item = PickField("items", blank=False, label=_("Item"))
    # Both may be blank: the world's price list names the price, and a line without a
    # quantity never runs out (engine.gm.market).
    price = forms.IntegerField(
        label=_("Price"), required=False, min_value=0, widget=forms.NumberInput({"class": "num"})
    )
    quantity = forms.IntegerField(
        label=_("Quantity"), required=False, min_value=0, widget=forms.NumberInput({"class": "num"})
    )

    def finish(self, data: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in data.items() if value is not None}


class ShopForm(GMForm):
    id = line(label=_("Id"), help_text=_("kebab-case; made from the name when left blank"))
    name = line(label=_("Name"))
    npc = PickField("npcs", blank=False, label=_("Kept by"))
    location = PickField("locations", blank=False, label=_("At"))
    rows = {"stock": (StockRow, _("Stock and prices"))}


class DebtForm(GMForm):
    id = line(label=_("Id"), required=True)
    debtor = PickField("parties", blank=False, label=_("Debtor"))
    creditor = PickField("parties", blank=False, label=_("Creditor"))
    amount = number(0, label=_("Amount"), min_value=0)
    due_day = forms.IntegerField(label=_("Due on day"), required=False, min_value=1)
    note = line(label=_("Note"))


class PawnForm(GMForm):
    item = PickField(
        "items", blank=False, label=_("Item"), help_text=_("Must be held by the NPC below.")
    )
    owner = PickField("parties", blank=False, label=_("Pawned by"))
    held_by = PickField("npcs", blank=False, label=_("Held by"))
    redeem_price = number(0, label=_("Redeem price"), min_value=0)
    debt = PickField("debts", label=_("For the debt"))


class HookForm(GMForm):
    id = line(label=_("Id"), required=True)
    trigger__type = choose(("enter", "time"), label=_("Fires on"))
    trigger__location = PickField("locations", label=_("Entering"))
    trigger__day = forms.IntegerField(label=_("From day"), required=False, min_value=1)
    trigger__time_of_day = choose(TIMES_OF_DAY, blank=True, label=_("At"))
    text = text(2, label=_("Event text"), required=True)
    once = forms.BooleanField(label=_("Only once"), required=False, initial=True)


class RumourForm(GMForm):
    id = line(label=_("Id"), required=True)
    text = text(2, label=_("Rumour"), required=True)
    heard_at = PicksField("locations", label=_("Heard at"))
