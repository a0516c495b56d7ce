"""The world linter's panel (issue 16 §1): findings of the draft, each linking to its field."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.views.decorators.http import require_GET

from studio.access import get_world_for_user
from studio.linting import lint_draft, lint_items
from studio.views.common import AuthedRequest, render_page


@login_required
@require_GET
def lint_panel(request: AuthedRequest, world_id: int) -> HttpResponse:
    """The panel alone for htmx (it refreshes on every saved change), else a page around it."""
    world = get_world_for_user(request.user, world_id, write=True)
    items = lint_items(world, lint_draft(world))
    errors = sum(1 for item in items if item.is_error)
    context = {
        "world": world,
        "lint": items,
        "lint_errors": errors,
        "lint_warnings": len(items) - errors,
        "section": "lint",
    }
    return render_page(request, "studio/lint.html", context, partial="lint-panel")
