"""Template helpers of the studio: editor navigation, preview panel, tag colours, play links."""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from engine.prompt import STEP_NAMES, PromptBlock
from studio.assets import resolve_asset_url
from studio.forms import PreviewForm
from studio.forms.preview import SAMPLE_CHAT
from studio.item_rows import item_rows as render_item_rows
from studio.item_rows import tag_class
from studio.labels import label_of, reason_label
from studio.live import default_values, step_name
from studio.models import World
from studio.scenes import scene_choices

register = template.Library()

NAV = (
    ("world", "studio:world", _("Overview")),
    ("portraits", "studio:portraits", _("Portraits")),
    ("entries", "studio:entries", _("Entries")),
    ("folders", "studio:folders", _("Folders")),
    ("tags", "studio:tags", _("Tags")),
    ("variables", "studio:variables", _("Variables")),
    ("rules", "studio:rules", _("Rules")),
    ("reactions", "studio:reactions", _("Reactions")),
    ("audio", "studio:audio", _("Audio")),
    ("bgm", "studio:bgm", _("Conditional BGM")),
    ("playlist", "studio:playlist", _("Playlist")),
    ("components", "studio:components", _("Components")),
    ("ui", "studio:ui", _("Custom UI")),
    ("settings", "studio:settings", _("Settings")),
    ("gm", "studio:gm", _("Game master")),
    ("evaluations", "studio:evaluations", _("Evaluations")),
    ("tests", "studio:world_tests", _("World tests")),
    ("tester", "studio:tester", _("Directive tester")),
)


@register.inclusion_tag("studio/partials/editor_nav.html")
def editor_nav(world: World, section: str = "") -> dict[str, Any]:
    links = [(key, reverse(name, args=[world.pk]), label) for key, name, label in NAV]
    return {"links": links, "section": section}


@register.inclusion_tag("studio/partials/preview_panel.html")
def preview_panel(
    world: World, form: PreviewForm | None = None, preview: Any = None
) -> dict[str, Any]:
    """The preview form (sample chat, state, persona); with ``preview``, its result too."""
    if form is None:
        form = PreviewForm(initial={"chat": SAMPLE_CHAT, "state": default_values(world)})
        form.offer_scene(*scene_choices(world))
    return {"world": world, "preview_form": form, "preview": preview}


@register.inclusion_tag("studio/partials/lint_panel.html")
def lint_panel(world: World) -> dict[str, Any]:
    """The linter's panel, empty: it loads its findings by htmx (``studio:lint``)."""
    return {"world": world, "lint": None}


register.filter("tag_class", tag_class)


@register.simple_tag
def item_rows(items: Any, names: dict[str, str], world: World, current: Any) -> SafeString:
    """The rows of an item list (`studio.item_rows`): a 5,000-entry list in one call."""
    return render_item_rows(items, names, world, current)


@register.filter
def step_label(step: int) -> str:
    return step_name(step)


@register.filter
def prompt_label(block: PromptBlock) -> str:
    """A prompt block's label: its step's name in the page's language, or the entry's name."""
    return step_name(block.step) if block.label == STEP_NAMES.get(block.step) else block.label


@register.filter
def fired_reason(reason: str) -> str:
    """Why the lorebook fired an entry, in the page's language (studio.labels)."""
    return reason_label(reason)


@register.filter
def label(value: Any) -> str:
    """An engine id (a section, a role, a direction…) in the page's language (studio.labels)."""
    return str(label_of(value))


@register.filter
def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.simple_tag
def asset_url(ref: str) -> str:
    """The browser URL of an ``@asset:<uid>`` reference (other URLs pass through)."""
    return resolve_asset_url(ref or "")


@register.simple_tag
def play_url(version_id: int) -> str:
    """The play helper's start page for a version; a plain path until its URL exists."""
    try:
        return reverse("play:start", args=[version_id])
    except NoReverseMatch:
        return f"/play/start/{version_id}/"
