"""The player's language on the websocket, chosen as LocaleMiddleware chooses it for a page.

A websocket has no middleware to activate a language, so the messages a turn raises (PlayError)
would be English on a Spanish page. The consumer activates this language around each frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest
from django.utils import translation


def language_from_scope(scope: Mapping[str, Any]) -> str:
    """The language cookie, else Accept-Language, else the site's default (never raises)."""
    request = HttpRequest()
    request.COOKIES = dict(scope.get("cookies") or {})
    headers = dict(scope.get("headers") or [])
    accept = headers.get(b"accept-language", b"")
    request.META["HTTP_ACCEPT_LANGUAGE"] = accept.decode("latin-1")
    return translation.get_language_from_request(request)
