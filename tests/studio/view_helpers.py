"""Plain helpers for the studio view tests (tests/studio/test_views_*.py)."""

from __future__ import annotations

from typing import Any

from django.test import Client

from studio.models import World, WorldVersion
from studio.publishing import publish_world

HX = {"HTTP_HX_REQUEST": "true"}


def hx(target: str = "") -> dict[str, str]:
    """Headers of an htmx request, optionally aimed at the element with id ``target``."""
    return {**HX, "HTTP_HX_TARGET": target} if target else dict(HX)


def login(client: Client, user: Any) -> Client:
    client.force_login(user)
    return client


def publish(world: World, changelog: str = "First release") -> WorldVersion:
    return publish_world(world, changelog)


def errors_of(response: Any) -> list[str]:
    """Every error message rendered in the response's forms, as plain text."""
    import re
    from html import unescape

    html = response.content.decode()
    lists = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', html, re.S)
    return [
        unescape(m).strip() for chunk in lists for m in re.findall(r"<li>(.*?)</li>", chunk, re.S)
    ]


def is_partial(response: Any) -> bool:
    """True when the response is a fragment (no <html> page around it)."""
    return b"<html" not in response.content
