"""Dates in the reader's own time zone (issue 16 §4).

The browser knows its zone and the server does not: static/js/site.js stores
``Intl.DateTimeFormat().resolvedOptions().timeZone`` in the ``fabula_tz`` cookie, and this
middleware activates it for the request, so templates (``{% when %}``, the ``date`` filter) show
local times. A missing, unknown or malformed zone leaves UTC (settings.TIME_ZONE). The cookie is
only ever looked up among the IANA zone names, never used as a path.
"""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.decorators import sync_and_async_middleware

COOKIE = "fabula_tz"
MAX_LENGTH = 64

Handler = Callable[[HttpRequest], Any]


@functools.cache
def _known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def zone_from_cookie(value: str) -> zoneinfo.ZoneInfo | None:
    """The IANA zone the cookie names, or None when it names none."""
    name = unquote(value or "")
    if not name or len(name) > MAX_LENGTH or name not in _known_zones():
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


@sync_and_async_middleware
def timezone_middleware(get_response: Handler) -> Handler:
    """Activate the browser's time zone for the request; UTC when it has not told us one."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            _activate(request)
            try:
                response: Awaitable[HttpResponse] = get_response(request)
                return await response
            finally:
                timezone.deactivate()

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        _activate(request)
        try:
            response: HttpResponse = get_response(request)
            return response
        finally:
            timezone.deactivate()

    return middleware


def _activate(request: HttpRequest) -> None:
    zone = zone_from_cookie(request.COOKIES.get(COOKIE, ""))
    if zone is None:
        timezone.deactivate()
    else:
        timezone.activate(zone)
