"""The headers every response carries beyond Django's own, and what error reports may show.

The Content-Security-Policy is built per request around a fresh nonce (``request.csp_nonce``,
``{{ csp_nonce }}`` in templates): an inline script or style runs only if the template that
rendered it says so, so a script someone smuggled into a page does not. There is no
'unsafe-inline' and no 'unsafe-eval' anywhere: no template carries ``on*=`` handlers or inline
``style`` attributes, and htmx runs with ``allowEval`` and its injected indicator styles off
(templates/base.html), so it needs neither.

A response that already has a policy keeps it (the custom-UI sandbox document sets its own,
stricter one). A page that frames the sandbox narrows ``frame-src``/``child-src`` to it by
setting ``csp_frame_src`` (a source string or a list of them) on the request or the response
(play/csp.py); its policy here is then written with those sources, replacing the frame-only
policy that view may have put on the response.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase
from django.utils.deprecation import MiddlewareMixin
from django.utils.regex_helper import _lazy_re_compile
from django.views.debug import SafeExceptionReporterFilter

CSP_HEADER = "Content-Security-Policy"
# Powerful features the site never uses; a world's code (or an injected script) gets none.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "usb",
    )
)
_ANCESTORS = {"DENY": "'none'", "SAMEORIGIN": "'self'"}


class SecurityHeadersMiddleware(MiddlewareMixin):
    """Give each request a nonce and each response the CSP and Permissions-Policy headers."""

    def process_request(self, request: HttpRequest) -> None:
        request.csp_nonce = secrets.token_urlsafe(18)  # type: ignore[attr-defined]

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        frames = _frame_sources(request, response)
        if CSP_HEADER in response.headers and frames is None:
            return response  # the view's own policy (the sandbox document)
        if settings.DEBUG and response.status_code in (404, 500):
            return response  # Django's technical pages style themselves inline
        response.headers[CSP_HEADER] = content_security_policy(request, response, frames)
        return response


def csp_nonce(request: HttpRequest) -> dict[str, str]:
    """Context processor: ``{{ csp_nonce }}`` for the rare inline ``<script>``/``<style>``."""
    return {"csp_nonce": getattr(request, "csp_nonce", "")}


def content_security_policy(
    request: HttpRequest, response: HttpResponseBase, frames: list[str] | None = None
) -> str:
    """The page policy; ``frames`` narrows where frames may load (default: this site)."""
    nonce = getattr(request, "csp_nonce", None) or secrets.token_urlsafe(18)
    frame_sources = " ".join(frames or ["'self'"])
    media = " ".join(_unique(["'self'", "blob:", "data:", *settings.FABULA_CSP_MEDIA_SRC]))
    directives = {
        "default-src": "'self'",
        "script-src": f"'self' 'nonce-{nonce}'",
        "style-src": f"'self' 'nonce-{nonce}'",
        "img-src": "'self' data: blob:",
        "media-src": media,
        "font-src": "'self' data:",
        "connect-src": " ".join(["'self'", *_websocket_sources(request)]),
        "frame-src": frame_sources,
        "child-src": frame_sources,
        "worker-src": "'self'",
        "object-src": "'none'",
        "base-uri": "'self'",
        "form-action": "'self'",
        "frame-ancestors": _ANCESTORS.get(response.get("X-Frame-Options", "").upper(), "'self'"),
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


def _frame_sources(request: HttpRequest, response: HttpResponseBase) -> list[str] | None:
    value: Any = getattr(response, "csp_frame_src", None) or getattr(request, "csp_frame_src", None)
    if not value:
        return None
    return [value] if isinstance(value, str) else [str(source) for source in value]


def _websocket_sources(request: HttpRequest) -> list[str]:
    # 'self' covers ws(s): in CSP level 3 only; name the socket's origin for older browsers.
    try:
        host = request.get_host()
    except DisallowedHost:
        return []  # the 400 page for a bad Host header still gets a policy
    return [f"wss://{host}"] if request.is_secure() else [f"ws://{host}", f"wss://{host}"]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))


class SettingsHidingFilter(SafeExceptionReporterFilter):
    """Django's filter, which also hides URLs and service addresses (they carry passwords).

    DATABASE_URL, REDIS_URL, the Celery broker and the channel layer's address all hold
    credentials under names Django's default pattern does not catch.
    """

    hidden_settings = _lazy_re_compile(
        "API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|COOKIE|URL|DSN|BROKER|BACKEND|ADDRESS|LOCATION",
        flags=re.IGNORECASE,
    )
