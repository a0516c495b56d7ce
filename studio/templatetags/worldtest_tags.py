"""Template helpers of the world-test pages (templates/studio/worldtests/)."""

from __future__ import annotations

from django import template

register = template.Library()

BADGES = {"passed": "ok", "failed": "danger", "error": "danger", "skipped": "off"}


@register.filter
def run_badge(status: str) -> str:
    """The badge class of a run's, a test's or a step's status: green, red or grey."""
    return BADGES.get(status, "warn")


@register.filter
def diff_lines(diff: str) -> list[tuple[str, str]]:
    """A diff's lines with their kind (``add``, ``del`` or ``same``), to colour them."""
    out = []
    for line in (diff or "").splitlines():
        head = line[:1]
        kind = "add" if head == "+" and not line.startswith("+++") else "same"
        kind = "del" if head == "-" and not line.startswith("---") else kind
        out.append((kind, line))
    return out
