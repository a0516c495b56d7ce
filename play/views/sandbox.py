"""The custom UI sandbox (seed 004 "自定义 UI", "沙箱环境"): the world's rootComponent as a page.

The play page frames this URL in ``<iframe sandbox="allow-scripts">`` (no allow-same-origin, so
the frame has an opaque origin: no cookies, no storage, no access to the parent's DOM; no
allow-popups, allow-forms or allow-top-navigation). The response adds a CSP of its own that
leaves the world's code no network at all (issue 9, §3):

* scripts: the one inline script by its hash, the runtime's files by their exact URLs (the
  vendored libraries and ``static/js/sandbox.js`` from /static/, the runtime's ES modules from
  :func:`runtime_module`, see below), and ``blob:``, which is how the world's files run once
  ``static/js/compile.js`` has compiled them in here (play/customui.py ships them as JSON
  data). A blob is made only by code already running in this frame and holds only what that
  code wrote, so ``blob:`` lets in nothing that was not already in, and a blob script has the
  same CSP, hence no network. No nonce: the page's scripts can read a nonce back
  (``script.nonce``) and would load ``<script nonce=… src=https://elsewhere/?chat=…>`` with
  it. No ``eval``/``new Function``.
* styles: ``'unsafe-inline'``, for the world's CSS and for Tailwind (``@tailwindcss/browser``,
  vendored, writes the CSS of the classes it sees into ``<style>`` elements). Styles can only
  reach the network through ``url()`` and ``@import``, which ``img-src``/``font-src`` and
  ``style-src`` (no host at all) refuse; the frame's origin is opaque, so there is nothing of
  the site's to restyle either.
* images, media and fonts: ``data:`` and ``blob:`` only, not even this server (a world's UI has
  no server-hosted images to show; ``?chat=…`` on our own URLs would only fill our logs, but
  there is no reason to allow it). CSS ``url()`` and ``@import`` fall under the same rules.
* no ``connect-src`` (fetch, XHR, WebSocket, EventSource, beacons, pings), no frames, workers,
  objects, manifests or prefetches (``default-src 'none'``), ``form-action 'none'``,
  ``base-uri 'none'``, and the CSP ``sandbox`` directive, so the page stays sandboxed even when
  opened directly.

Navigating the frame itself away cannot be refused from in here (Chromium has no
``navigate-to``): the embedding page's ``frame-src`` does that (play/csp.py).

The runtime is ES modules (``static/js/sandbox/``, no bundler). From the frame's opaque origin a
module fetch is a cross-origin request in CORS mode, so each module needs
``Access-Control-Allow-Origin``; ``*`` is right for public code fetched without credentials (the
frame has no cookies to send). :func:`runtime_module` serves them with it, by name from a fixed
list, at ``/play/sandbox-js/``: a view rather than /static/, because ``runserver``'s static
handler (``make run``, the browser tests), ``config.serve --static`` and a proxy or CDN in front
of ``staticfiles/`` would each need the header set their own way, while this path reaches Django
in all of them. Nothing else gets the header, and it is outside the ``/play/ui/`` prefix that
framing pages allow (play/csp.py).
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from pathlib import Path

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET

from play.customui import ui_sources
from play.sessions import world_of
from play.views.common import session_for

RUNTIME_SCRIPTS = (
    "vendor/react/react.production.min.js",
    "vendor/react/react-dom.production.min.js",
    "js/markdown.js",
    "vendor/sucrase/sucrase.min.js",
    "js/compile.js",
    "vendor/tailwind/tailwind.browser.js",
    "js/sandbox.js",
)
BOOT = "\nwindow.FabulaSandbox.boot();\n"
# The runtime's ES modules, entry first; templates/play/sandbox.html preloads the same list.
MODULES_DIR = Path(__file__).resolve().parents[2] / "static" / "js" / "sandbox"
RUNTIME_MODULES = (
    "main.js",
    "store.js",
    "bridge.js",
    "api.js",
    "guards.js",
    "components.js",
    "loader.js",
    "boot.js",
)


@require_GET
@never_cache
@xframe_options_sameorigin
def custom_ui(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    session = session_for(request, session_id)
    world = world_of(session)
    root = world.root_component
    if root is None or not root.files:
        raise Http404("this world has no custom UI")
    inline = BOOT
    context = {
        "runtime": [static(path) for path in RUNTIME_SCRIPTS],
        "inline": inline,
        "ui": ui_sources(root).as_data(),
        "world_name": world.name,
        "language": world.language or get_language() or "en",
    }
    response = render(request, "play/sandbox.html", context)
    response["Content-Security-Policy"] = sandbox_csp(request, inline)
    response["Referrer-Policy"] = "no-referrer"
    response["X-Content-Type-Options"] = "nosniff"
    response["X-DNS-Prefetch-Control"] = "off"  # no lookups of names the world's code chose
    return response


def sandbox_csp(request: HttpRequest, inline_script: str) -> str:
    """The sandbox document's policy: ``inline_script`` is the one inline script it may run."""
    digest = base64.b64encode(hashlib.sha256(inline_script.encode()).digest()).decode()
    # The frame's origin is opaque, so 'self' would not name this server: spell the URLs out.
    origin = f"{request.scheme}://{request.get_host()}"
    urls = [static(path) for path in RUNTIME_SCRIPTS] + runtime_module_urls()
    runtime = " ".join(_absolute(origin, url) for url in urls)
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'sha256-{digest}' {runtime} blob:",
            "style-src 'unsafe-inline'",
            "img-src data: blob:",
            "media-src data: blob:",
            "font-src data: blob:",
            "connect-src 'none'",
            "frame-src 'none'",
            "child-src 'none'",
            "worker-src 'none'",
            "object-src 'none'",
            "manifest-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'self'",
            "sandbox allow-scripts",
        ]
    )


def _absolute(origin: str, url: str) -> str:
    # A CDN STATIC_URL is already absolute; query strings are ignored by CSP path matching.
    return url if "://" in url else origin + url


def runtime_module_urls() -> list[str]:
    return [reverse("play:sandbox_module", args=[name]) for name in RUNTIME_MODULES]


@require_GET
def runtime_module(request: HttpRequest, name: str) -> HttpResponseBase:
    """One of the runtime's ES modules, fetchable from the sandbox's opaque origin (see above)."""
    if name not in RUNTIME_MODULES:
        raise Http404("no such module")
    body = (MODULES_DIR / name).read_bytes()
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    response = get_conditional_response(request, etag=etag) or HttpResponse(
        body, content_type="text/javascript; charset=utf-8"
    )
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache"  # revalidated: the modules of one deploy go together
    response["Access-Control-Allow-Origin"] = "*"
    response["X-Content-Type-Options"] = "nosniff"
    return response
