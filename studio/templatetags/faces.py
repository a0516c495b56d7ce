"""Faces in templates: a portrait's thumbnail, or initials on a colour when there is none.

``{% face world.portrait world.name "md" %}`` takes a portrait FileField (or its name);
``{% face_of config.faces.user "sm" %}`` takes a ``studio.portraits.face_info`` dict. Sizes: ``sm``
(message bubbles, lists; the 64 px thumbnail), ``md`` and ``lg`` (headers, cards; the 256 px one).
The image is decorative (its name is always written beside it), so its ``alt`` is empty; if it
fails to load, static/js/site.js puts the initials in its place: never a broken image.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from studio.portraits import HUES, face_info

register = template.Library()

PIXELS = {"sm": 28, "md": 44, "lg": 96}


@register.simple_tag
def face(source: Any, label: Any, size: str = "sm") -> SafeString:
    name = getattr(source, "name", source) or ""
    return face_of(face_info(str(name), str(label or "")), size)


@register.simple_tag
def face_of(info: Any, size: str = "sm") -> SafeString:
    info = info if isinstance(info, dict) else face_info("", "")
    size = size if size in PIXELS else "sm"
    url = info.get("icon") if size == "sm" else info.get("thumb")
    hue = int(info.get("hue") or 0) % HUES
    initials = str(info.get("initials") or "?")
    classes = f"face face--{size}"
    if url:
        return format_html(
            '<img class="{}" src="{}" alt="" width="{}" height="{}" data-initials="{}" '
            'data-hue="{}" decoding="async">',
            classes,
            url,
            PIXELS[size],
            PIXELS[size],
            initials,
            hue,
        )
    return format_html(
        '<span class="{} face--initials face--hue-{}" aria-hidden="true">{}</span>',
        classes,
        hue,
        initials,
    )
