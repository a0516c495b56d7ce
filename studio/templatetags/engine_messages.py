"""``{{ reason|said }}``: an engine message in the page's language (``studio.messages``)."""

from __future__ import annotations

from django import template

from studio.messages import translated_line

register = template.Library()


@register.filter
def said(text: object) -> str:
    """An English message of the engine (``path: message`` or bare), translated."""
    return translated_line(str(text))
