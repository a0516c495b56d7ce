"""The rows of a studio item list (entries, variables, rules…), rendered in Python.

Every save in the editor answers with the whole workspace, list included, so a world of 5,000
entries re-rendered 5,000 rows per keystroke-sized edit. Through the template language that took
about two seconds: six URL reversals and some thirty nodes per row. Here each URL is reversed
once per list and each row is one f-string, its creator text escaped (about 30 times faster);
the markup is what the template wrote, and `templates/studio/items.html` includes it through
the ``item_rows`` tag.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from html import escape
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

_COLOR = re.compile(r"(?:bg|text|border)-([a-z]+)(?:-\d+)?")
# A primary key no row has: where it lands in a reversed URL is where each row's pk goes.
_SLOT = 2_147_000_000

_CURRENT = ' class="current" aria-current="true"'


def url_for_rows(name: str, world_pk: int) -> Callable[[int], str]:
    """``reverse(name, args=[world_pk, pk])`` for any ``pk``, reversing once."""
    head, _slot, tail = reverse(name, args=[world_pk, _SLOT]).rpartition(str(_SLOT))
    return lambda pk: f"{head}{pk}{tail}"


def item_rows(
    items: Iterable[tuple[Any, str]], names: dict[str, str], world: Any, current: Any
) -> SafeString:
    """The ``<li>`` of each ``(row, description)``; ``current`` is the row being edited.

    Creator text (name, key, description, tags) is escaped here, as autoescape did; the rest is
    this module's own markup, translated once.
    """
    edit, move = url_for_rows(names["edit"], world.pk), url_for_rows(names["move"], world.pk)
    colors = world.custom_tag_colors if isinstance(world.custom_tag_colors, dict) else {}
    drag = escape(gettext("Drag to reorder"))
    up_title, down_title = escape(gettext("Move up")), escape(gettext("Move down"))
    up, down = gettext("Move %(name)s up"), gettext("Move %(name)s down")
    current_pk = getattr(current, "pk", None)
    items = list(items)
    out = []
    for index, (item, meta) in enumerate(items):
        pk, name, key = item.pk, getattr(item, "name", ""), getattr(item, "key", "")
        label = name or key
        refocus = f"#item-list li[data-id='{pk}'] button"
        link, moved = edit(pk), move(pk)
        controls = f'class="icon small" name="direction" formaction="{moved}" hx-post="{moved}"'
        out.append(
            f'<li data-id="{pk}" draggable="true"{_CURRENT if pk == current_pk else ""}>'
            f'<input type="hidden" name="order" value="{pk}">'
            f'<span class="grip" aria-hidden="true" title="{drag}">⋮⋮</span>'
            f'<span class="name"><a href="{link}" hx-get="{link}" hx-target="#workspace" '
            f'hx-push-url="true">{escape(label)}</a> '
            f'<span class="meta">{escape(f"{key} · {meta}" if name else str(meta))}</span> '
            f'{_badges(getattr(item, "tags", None), colors)}</span><span class="controls">'
            f'<button type="submit" {controls} value="up" title="{up_title}" '
            f'aria-label="{escape(up % {"name": label})}" data-refocus="{refocus}[value=up]"'
            f"{' disabled' if index == 0 else ''}>↑</button> "
            f'<button type="submit" {controls} value="down" title="{down_title}" '
            f'aria-label="{escape(down % {"name": label})}" data-refocus="{refocus}[value=down]"'
            f"{' disabled' if index == len(items) - 1 else ''}>↓</button></span></li>"
        )
    return mark_safe("".join(out))  # every piece of creator text escaped above


def tag_class(color: str | None) -> str:
    """A CSS class for a Tailwind colour class of ``customTagColors`` (``bg-red-500`` → red)."""
    match = _COLOR.search(color or "")
    return f"tag-color-{match.group(1)}" if match else "tag-color-gray"


def _badges(tags: list[str] | None, colors: dict[str, Any]) -> str:
    return " ".join(
        f'<span class="badge {tag_class(colors.get(tag))}">{escape(tag)}</span>'
        for tag in tags or ()
    )
