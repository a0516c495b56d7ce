"""The custom UI sandbox (seed 004 "自定义 UI", "沙箱环境"): the world's rootComponent as a page.

The play page frames this URL in ``<iframe sandbox="allow-scripts">`` (no allow-same-origin, so
the frame has an opaque origin: no cookies, no storage, no access to the parent's DOM). The
response adds a strict CSP of its own: scripts only with this response's nonce (so no
``eval``/``new Function``), no network (``connect-src 'none'``), no forms, no nested frames, and
the CSP ``sandbox`` directive, so the page stays sandboxed even when opened directly.
"""

from __future__ import annotations

import secrets
import uuid

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET

from play.customui import compile_root_component
from play.sessions import world_of
from play.views.common import session_for


@require_GET
@never_cache
@xframe_options_sameorigin
def custom_ui(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    session = session_for(request, session_id)
    world = world_of(session)
    root = world.root_component
    if root is None or not root.files:
        raise Http404("this world has no custom UI")
    compiled = compile_root_component(root)
    nonce = secrets.token_urlsafe(18)
    context = {
        "nonce": nonce,
        "script": compiled.script,
        "css": compiled.css,
        "world_name": world.name,
        "language": world.language or get_language() or "en",
    }
    response = render(request, "play/sandbox.html", context)
    response["Content-Security-Policy"] = sandbox_csp(request, nonce)
    response["Referrer-Policy"] = "no-referrer"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def sandbox_csp(request: HttpRequest, nonce: str) -> str:
    # The frame's origin is opaque, so 'self' would not name this server: spell it out.
    origin = f"{request.scheme}://{request.get_host()}"
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'nonce-{nonce}'",
            "style-src 'unsafe-inline'",
            f"img-src {origin} data: blob:",
            f"media-src {origin} data: blob:",
            f"font-src {origin} data:",
            "connect-src 'none'",
            "frame-src 'none'",
            "worker-src 'none'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'self'",
            "sandbox allow-scripts",
        ]
    )
