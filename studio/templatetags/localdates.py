"""One way to show a moment in every page: ``{% when value %}`` (or ``{% when value "date" %}``).

It writes ``<time>`` with the machine-readable instant, the short form in the reader's language
(Django's localised formats) and time zone (config.timezones), and the full form with the zone's
name as its title. A missing value is a dash.
"""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import formats, timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def when(value: datetime | None, kind: str = "datetime") -> SafeString | str:
    if value is None:
        return "—"
    local = timezone.localtime(value) if timezone.is_aware(value) else value
    short = "SHORT_DATE_FORMAT" if kind == "date" else "SHORT_DATETIME_FORMAT"
    full = formats.date_format(local, "DATETIME_FORMAT")
    return format_html(
        '<time datetime="{}" title="{} ({})">{}</time>',
        local.isoformat(timespec="minutes"),
        full,
        timezone.get_current_timezone_name(),
        formats.date_format(local, short),
    )
