"""Template filters of the play pages."""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.utils.safestring import SafeString

from play.markdown import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    """A message's text as sanitized HTML (the subset of ``static/js/markdown.js``)."""
    return render_markdown(text)


@register.filter(name="pretty_json")
def pretty_json(value: Any) -> str:
    """Indented JSON for the state inspector (escaped by the template like any text)."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


@register.simple_tag
def world_demo(world: Any) -> Any:
    """The world's published demo (``{% world_demo world as demo %}``), or None."""
    from play.demos import demo_of  # the tag library loads before the apps are ready

    return demo_of(world) if world is not None and world.pk else None
