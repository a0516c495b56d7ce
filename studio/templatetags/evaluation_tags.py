"""Filters of the evaluation report: dictionary lookups, money and shares."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

register = template.Library()


@register.filter
def get(mapping: Any, key: str) -> Any:
    """``mapping[key]``, or None (templates cannot index a dict by a variable)."""
    return mapping.get(key) if isinstance(mapping, Mapping) else None


@register.filter
def usd(value: Any) -> str:
    """Dollars with enough places for fractions of a cent."""
    try:
        amount = float(value or 0)
    except (TypeError, ValueError):
        return "$0"
    return f"${amount:.4f}" if amount < 1 else f"${amount:.2f}"


@register.filter
def percent(value: Any) -> str:
    try:
        return f"{float(value or 0):.0%}"
    except (TypeError, ValueError):
        return "0%"


@register.filter
def cache_share(usage: Any) -> float:
    """Cache reads over the whole prompt of one step's usage."""
    if not isinstance(usage, Mapping):
        return 0.0
    prompt = sum(
        float(usage.get(k, 0) or 0)
        for k in ("input_tokens", "cache_read_tokens", "cache_write_tokens")
    )
    return float(usage.get("cache_read_tokens", 0) or 0) / prompt if prompt else 0.0
