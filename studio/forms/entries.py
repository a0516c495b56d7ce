"""Forms for entries, folders and the world's custom tags (seed 004 "条目与分区")."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from engine.world import API_ROLES, ENTRY_ROLES, SECTIONS
from studio.forms.base import EngineForm, ListField, choices, optional_int, set_choices
from studio.forms.logic import condition_logic_field, json_list_field
from studio.forms.rows import ConditionRows, load_pickers
from studio.forms.structured import StructuredForm
from studio.models import World

ID_HELP = _("kebab-case, unique in the world; left empty, it is made from the name")
# Seed 004 "次关键词", in SillyTavern's words (its "Logic" select next to the secondary keys).
SECONDARY_LOGIC = (
    ("AND_ANY", _("AND ANY: a primary keyword and at least one of these")),
    ("AND_ALL", _("AND ALL: a primary keyword and every one of these")),
    ("NOT_ANY", _("NOT ANY: a primary keyword and none of these")),
    ("NOT_ALL", _("NOT ALL: a primary keyword, unless all of these match too")),
)
# Issue 35 §1: only chat-history reads keywords; every other section is sent on every turn.
AUTO_SECTION = _("Automatic: chat history if it has keywords, else system presets")
SECTION_HELP = _(
    "Keywords only work in chat history: an entry there is sent when the chat mentions one. "
    "Every other section is sent on every turn, whatever its keywords."
)
TAG_COLORS = (
    "gray",
    "red",
    "orange",
    "amber",
    "yellow",
    "green",
    "teal",
    "cyan",
    "blue",
    "indigo",
    "violet",
    "pink",
)


def folder_choices(world: World, current: str | None = None) -> list[tuple[str, Any]]:
    options: list[tuple[str, Any]] = [("", _("— no folder —"))]
    options += [(f.key, f.name or f.key) for f in world.folders.all()]
    if current and current not in {key for key, _label in options}:
        options.append((current, current))
    return options


class EntryForm(StructuredForm):
    id = forms.CharField(label=_("ID"), required=False, max_length=120, help_text=ID_HELP)
    name = forms.CharField(label=_("Name"), required=False, max_length=300)
    section = forms.ChoiceField(
        label=_("Section"),
        required=False,
        choices=[("", AUTO_SECTION), *choices(SECTIONS)],
        help_text=SECTION_HELP,
    )
    position = forms.IntegerField(label=_("Position in section"), initial=0)
    role = forms.ChoiceField(label=_("Role"), choices=choices(ENTRY_ROLES), initial="custom")
    api_role = forms.ChoiceField(label=_("API role"), choices=choices(API_ROLES))
    content = forms.CharField(
        label=_("Content"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "class": "tall"}),
        help_text=_("Macros such as {{char}}, {{user}} and {{variable-id}} are replaced."),
    )
    enabled = forms.BooleanField(label=_("Enabled"), required=False, initial=True)
    keywords = ListField(
        label=_("Keywords"), help_text=_("Comma separated; any match fires a chat-history entry.")
    )
    secondary_keywords = ListField(
        label=_("Secondary keywords"),
        help_text=_("Optional filter on top of the keywords; left empty, it is not checked."),
    )
    secondary_keyword_logic = forms.ChoiceField(
        label=_("Fire when"),
        choices=SECONDARY_LOGIC,
        initial="AND_ANY",
        widget=forms.RadioSelect,
    )
    match_whole_words = forms.BooleanField(label=_("Match whole words"), required=False)
    case_sensitive = forms.BooleanField(label=_("Case sensitive"), required=False)
    depth = optional_int(
        label=_("Depth"), min_value=0, help_text=_("Messages from the end (0 = before the last).")
    )
    prevent_recursion = forms.BooleanField(
        label=_("Prevent recursion"),
        required=False,
        help_text=_("Its text fires no other entry (SillyTavern: “Prevent further recursion”)."),
    )
    exclude_recursion = forms.BooleanField(
        label=_("Exclude recursion"),
        required=False,
        help_text=_("Only the chat fires it, never another entry (SillyTavern: “Non-recursable”)."),
    )
    conditions = json_list_field(
        _("Conditions (JSON)"),
        _('e.g. [{"variableId": "story-phase", "operator": "eq", "value": "act2"}]'),
        rows=4,
    )
    condition_logic = condition_logic_field()
    tags = ListField(label=_("Tags"))
    folder_id = forms.ChoiceField(label=_("Folder"), required=False)

    json_parts = ("conditions",)
    required_text = ("content",)

    def __init__(self, world: World, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, pickers=load_pickers(world), **kwargs)
        current = self.data.get("folder_id") if self.is_bound else self.initial.get("folder_id")
        set_choices(self, "folder_id", folder_choices(world, current))
        if world.custom_tags:
            known = ", ".join(world.custom_tags)
            self.fields["tags"].help_text = _("Comma separated. Your tags: %(tags)s") % {
                "tags": known
            }

    def fill(self, source: dict[str, Any]) -> bool:
        return self.add_rows("conditions", ConditionRows, source.get("conditions"))

    def structured(self) -> dict[str, Any] | None:
        conditions = self.rows_json("conditions")
        return None if conditions is None else {"conditions": conditions}

    def clean_folder_id(self) -> str | None:
        return self.cleaned_data["folder_id"] or None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if not cleaned.get("section"):
            cleaned["section"] = "chat-history" if cleaned.get("keywords") else "system-presets"
        return cleaned


class EntryFilterForm(forms.Form):
    q = forms.CharField(
        label=_("Search"),
        required=False,
        widget=forms.TextInput(attrs={"type": "search", "placeholder": _("Name or keyword")}),
    )
    section = forms.ChoiceField(label=_("Section"), required=False)
    tag = forms.CharField(
        label=_("Tag"), required=False, widget=forms.TextInput(attrs={"placeholder": _("Tag")})
    )
    folder = forms.ChoiceField(label=_("Folder"), required=False)

    def __init__(self, world: World, *args: Any, **kwargs: Any) -> None:
        # Its own id prefix: the entry form on the same page has "section" too.
        kwargs.setdefault("auto_id", "filter_%s")
        super().__init__(*args, **kwargs)
        set_choices(self, "section", [("", _("All sections")), *choices(SECTIONS)])
        set_choices(self, "folder", [("", _("All folders")), *folder_choices(world)[1:]])


class FolderForm(EngineForm):
    id = forms.CharField(label=_("ID"), required=False, max_length=120, help_text=ID_HELP)
    name = forms.CharField(label=_("Name"), max_length=300)
    parent_id = forms.ChoiceField(label=_("Parent folder"), required=False)

    def __init__(self, world: World, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        current = self.data.get("parent_id") if self.is_bound else self.initial.get("parent_id")
        set_choices(self, "parent_id", folder_choices(world, current))

    def clean_parent_id(self) -> str | None:
        return self.cleaned_data["parent_id"] or None


class TagForm(forms.Form):
    tag = forms.CharField(label=_("Tag"), max_length=60)
    color = forms.ChoiceField(label=_("Colour"), choices=choices(TAG_COLORS), initial="blue")

    def clean_tag(self) -> str:
        return str(self.cleaned_data["tag"]).strip()
