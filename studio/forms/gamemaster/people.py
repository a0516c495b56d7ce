"""Forms of the game master's people (seed 001 "PNJ", "Trato", "Fichas"): NPCs with their
secret, disclosures by trust and schedule, and the player characters' sheets."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from engine.gm.vocab import ABILITIES, TIMES_OF_DAY, TRUST_LEVELS
from studio.forms.gamemaster.base import (
    GMForm,
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
from studio.labels import label_of

KINDS = ("person", "animal", "filler")


class ScheduleRow(GMForm):
    time_of_day = choose(TIMES_OF_DAY, label=_("Time of day"))
    place = PlaceField(spread=True, label=_("Place"))
    activity = line(label=_("Activity"))


class TrustRow(GMForm):
    character = PickField("characters", label=_("Character"))
    level = choose(TRUST_LEVELS, label=_("Starts at"), initial="stranger")


class NpcForm(GMForm):
    local_prefixes = ("disclosure_",)
    id = line(label=_("Id"), help_text=_("kebab-case; made from the name when left blank"))
    name = line(label=_("Name"), required=True)
    aliases = WordsField(label=_("Aliases"))
    kind = choose(KINDS, label=_("Kind"))
    trade = line(label=_("Trade"), help_text=_("How a stranger names it: innkeeper, smith…"))
    public_description = text(2, label=_("Public description"), help_text=_("What anyone sees."))
    description = text(2, label=_("Manner"), help_text=_("How it talks and acts (for voicing)."))
    motivation = text(2, label=_("Motivation"))
    situation = text(2, label=_("Situation"))
    secret__text = text(2, label=_("Secret"), help_text=_("Never enters a scene context."))
    secret__tells_to = line(label=_("Would tell it to"), help_text=_("Shown instead of the text."))
    secret__reveal_at_trust = choose(TRUST_LEVELS, label=_("Reveals it at"), initial="ally")
    location = PickField("locations", label=_("Starts at"))
    home = PickField("locations", label=_("Home"))
    fixed_place = PlaceField(
        label=_("Fixed place"),
        help_text=_("Where it always is, unless its schedule says otherwise."),
    )
    people = PicksField("npcs", label=_("Its people"))
    concerns = LinesField(label=_("Concerns"), widget=forms.Textarea(attrs={"rows": 2}))
    knows = PicksField("characters", label=_("Knows these characters"))
    start_trust = choose(TRUST_LEVELS, label=_("Start trust"), initial="stranger")
    dislikes_flattery = forms.BooleanField(label=_("Dislikes flattery"), required=False)
    ac = number(10, label=_("AC"), min_value=0, max_value=40)
    hp = number(4, label=_("HP"), min_value=0)
    rows = {
        "schedule": (ScheduleRow, _("Daily schedule")),
        "trustRows": (TrustRow, _("Trust toward a character")),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        record = kwargs.get("record")
        if record is not None:
            trust = record.get("trust") or {}
            kwargs["record"] = {
                **record,
                "trustRows": [{"character": c, "level": v} for c, v in trust.items()],
            }
        super().__init__(*args, **kwargs)
        for level in TRUST_LEVELS:
            name = f"disclosure_{level}"
            told = ((record or {}).get("disclosures") or {}).get(level, "")
            self.fields[name] = text(
                1, label=_("Tells at %(level)s") % {"level": label_of(level)}, initial=told
            )

    def finish(self, data: dict[str, Any]) -> dict[str, Any]:
        secret = data.get("secret") or {}
        if not (secret.get("text") or "").strip():
            data["secret"] = None
        told = {level: data.pop(f"disclosure_{level}", "") for level in TRUST_LEVELS}
        data["disclosures"] = {level: said for level, said in told.items() if said.strip()}
        data["trust"] = {row["character"]: row["level"] for row in data.pop("trustRows", [])}
        return data

    @classmethod
    def field_name_for(cls, path: str) -> str | None:
        head, _sep, rest = path.partition(".")
        if head == "disclosures" and rest in TRUST_LEVELS:
            return f"disclosure_{rest}"
        if head == "trust":
            return None
        return super().field_name_for(path)


class ResourceRow(GMForm):
    name = line(label=_("Resource"), required=True, help_text=_("spell slots, arrows…"))
    current = number(0, label=_("Current"), min_value=0)
    max = number(0, label=_("Max"), min_value=0)


class CharacterForm(GMForm):
    json_keys = {"full__klass": "full.class"}
    local_prefixes = ("ability_",)

    id = line(label=_("Id"), help_text=_("kebab-case; made from the name when left blank"))
    name = line(label=_("Name"), required=True)
    player = line(label=_("Player"))
    place = PlaceField(spread=True, blank=False, label=_("Location"))
    public__appearance = text(2, label=_("Appearance (public)"))
    public__reputation = text(2, label=_("Reputation (public)"))
    full__klass = line(label=_("Class"))
    full__traits = WordsField(label=_("Traits"))
    full__background = text(2, label=_("Background"))
    full__secrets = LinesField(
        label=_("Secrets"),
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("One per line; never shown to others."),
    )
    hp = number(10, label=_("HP"), min_value=0)
    max_hp = number(10, label=_("Max HP"), min_value=1)
    ac = number(10, label=_("AC"), min_value=0, max_value=40)
    proficiency_bonus = number(2, label=_("Proficiency bonus"), min_value=0, max_value=10)
    proficiencies = PicksField("checks", label=_("Proficiencies"))
    conditions = WordsField(label=_("Conditions"))
    money = number(0, label=_("Money"), min_value=0)
    in_hand = PickField("items", label=_("In hand"), help_text=_("An item this character carries."))
    known_names = PicksField("parties", label=_("Knows the names of"))
    known_places = PicksField("locations", label=_("Knows the places"))
    rows = {"resourceRows": (ResourceRow, _("Resources"))}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        record = kwargs.get("record")
        if record is not None:
            resources = record.get("resources") or {}
            rows = [{"name": k, **v} for k, v in resources.items() if isinstance(v, dict)]
            kwargs["record"] = {**record, "resourceRows": rows}
        super().__init__(*args, **kwargs)
        for ability in ABILITIES:
            score = (((record or {}).get("abilities") or {}).get(ability)) or 10
            self.fields[f"ability_{ability}"] = number(
                score, label=str(label_of(ability)).capitalize(), min_value=1, max_value=30
            )
            self.initial.setdefault(f"ability_{ability}", score)

    def finish(self, data: dict[str, Any]) -> dict[str, Any]:
        data["abilities"] = {a: data.pop(f"ability_{a}") for a in ABILITIES}
        rows = data.pop("resourceRows", [])
        data["resources"] = {r.pop("name"): r for r in rows}
        return data

    @classmethod
    def field_name_for(cls, path: str) -> str | None:
        head, _sep, rest = path.partition(".")
        if head == "abilities" and rest in ABILITIES:
            return f"ability_{rest}"
        return super().field_name_for(path)
