"""Where the custom-UI sandbox may be framed from, and where its frame may go (issue 9, §3).

The world's UI runs in ``<iframe sandbox="allow-scripts">``; the sandbox keeps it away from the
page, but a frame may still navigate *itself* (``location=``, ``<meta http-equiv=refresh>``) and
take the chat, the persona and the variables it was given along in the URL. Only the embedding
page's ``frame-src`` governs that navigation (Chromium has no ``navigate-to``), so every page that
frames the sandbox limits ``frame-src``/``child-src`` to the sandbox's own path on this server.

Two layers, so no page depends on when the global CSP middleware lands:

* the views that render such a page are wrapped in :func:`embeds_sandbox`, which adds the policy
  as a header and leaves the sources on ``response.csp_frame_src`` for that middleware to fold
  into its own policy;
* ``static/js/customui.js`` inserts the same policy as a ``<meta http-equiv>`` before it makes the
  frame, which covers the studio editor pages (the playtest panel arrives there by htmx).

A page may carry several policies; the browser enforces each one, so these only ever narrow.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse
from django.urls import reverse

CSP_HEADER = "Content-Security-Policy"
# An impossible id: reversing with it and cutting it off gives the sandbox URLs' common prefix.
_PROBE = "00000000-0000-0000-0000-000000000000"

View = TypeVar("View", bound=Callable[..., HttpResponse])


def sandbox_url_prefix() -> str:
    """``/play/ui/``: every session's sandbox lives under it, and nothing else does."""
    url = reverse("play:sandbox", args=[_PROBE])
    return url[: url.index(_PROBE)]


def sandbox_frame_sources(request: HttpRequest) -> list[str]:
    """The CSP sources a page that frames the sandbox may load in frames: that path only."""
    return [f"{request.scheme}://{request.get_host()}{sandbox_url_prefix()}"]


def sandbox_frame_policy(request: HttpRequest) -> str:
    """``frame-src …; child-src …`` for a page that frames the sandbox.

    ``child-src`` is set too for browsers that predate ``frame-src``; it also limits workers,
    which the play pages do not use.
    """
    sources = " ".join(sandbox_frame_sources(request))
    return f"frame-src {sources}; child-src {sources}"


def embeds_sandbox(view: View) -> View:
    """Give the view's response the frame policy (header + ``response.csp_frame_src``)."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        add_frame_policy(request, response)
        return response

    return wrapper  # type: ignore[return-value]


def add_frame_policy(request: HttpRequest, response: HttpResponse) -> None:
    response.csp_frame_src = sandbox_frame_sources(request)  # type: ignore[attr-defined]
    policy = sandbox_frame_policy(request)
    existing = response.get(CSP_HEADER)
    # A comma joins two policies in one header; the browser enforces both.
    response[CSP_HEADER] = f"{existing}, {policy}" if existing else policy
