"""The public gallery of published worlds (at /) and each world's page."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from studio.access import get_world_for_user, may_copy_version
from studio.publishing import gallery_page, gallery_worlds
from studio.views.common import Request, render_page
from studio.welcome import demo_worlds

PAGE_SIZE = 12


@require_GET
def gallery(request: Request) -> HttpResponse:
    query = request.GET.get("q", "").strip()
    tag = request.GET.get("tag", "").strip()
    language = request.GET.get("language", "").strip()
    worlds = gallery_worlds(query, tag, language)
    page = gallery_page(worlds, PAGE_SIZE, request.GET.get("page"))
    context: dict[str, Any] = {"page": page, "q": query, "tag": tag, "language": language}
    if not request.user.is_authenticated:  # a guest first hears what Fabula is (issue 35)
        context["demos"] = demo_worlds()
    return render_page(request, "studio/gallery.html", context, partial="results")


@require_GET
def world_page(request: Request, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id)
    versions = list(world.versions.all())
    current = world.published_version if world.published else (versions[0] if versions else None)
    # A game-master version is exported or forked by others only when remixable (issue 32).
    copyable = {v.pk for v in versions if may_copy_version(request.user, v)}
    context = {"world": world, "versions": versions, "current": current, "copyable": copyable}
    return render_page(request, "studio/world_page.html", context)
