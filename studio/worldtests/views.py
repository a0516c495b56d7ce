"""The world-test pages (issue 13 §3): the list with "Run tests" and the last run's results, the
editor of one test (form ⇄ raw JSON), and the run panel that htmx polls until the run ends.

Only the world's owner reaches them (``get_world_for_user(write=True)``: 404 for a world one
cannot see, 403 for someone else's published world). Every POST also works without JavaScript:
it redirects; an htmx request gets the partial it swaps.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from engine.worldtests import SuiteError
from studio.access import get_world_for_user
from studio.models import World
from studio.views.common import AuthedRequest, posted, render_page
from studio.worldtests.forms import TestForm
from studio.worldtests.models import WorldTest, WorldTestRun
from studio.worldtests.suites import (
    delete_test,
    latest_run,
    save_test,
    start_run,
    suite_json,
    tests_of,
)

LIST = "studio/worldtests/list.html"
EDIT = "studio/worldtests/edit.html"
STAYS_JSON = "The form cannot show every field of this test, so it stays raw JSON."


@login_required
@require_GET
def test_list(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    return render_page(request, LIST, _list_context(world, latest_run(world)))


def _list_context(world: World, run: WorldTestRun | None) -> dict[str, Any]:
    return {"world": world, "tests": tests_of(world), "run": run, "section": "tests"}


@login_required
@require_http_methods(["GET", "POST"])
def test_edit(request: AuthedRequest, world_id: int, pk: int | None = None) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    test = get_object_or_404(WorldTest, world=world, pk=pk) if pk is not None else None
    source = test.definition if test is not None else None
    form = TestForm(posted(request), initial_data=source)
    if request.method == "POST" and form.is_valid():
        try:
            test = save_test(world, form.test_data(), test)
        except SuiteError as exc:
            form.add_engine_errors(exc.errors)
        else:
            return redirect("studio:world_tests", world.pk)
    status = 400 if form.is_bound else 200
    context = {"world": world, "test": test, "form": form, "section": "tests"}
    return render_page(request, EDIT, context, status=status)


@login_required
@require_POST
def test_editor_switch(request: AuthedRequest, world_id: int) -> HttpResponse:
    """Redraw the editor on the side picked, from what the other side holds; nothing is saved."""
    world = get_world_for_user(request.user, world_id, write=True)
    wanted = "json" if request.POST.get("editor") == "json" else "form"
    data = request.POST.copy()
    data["editor"] = "form" if wanted == "json" else "json"
    form = TestForm(data)
    logic = form.logic_data()
    if logic is not None:
        form = TestForm(initial_data=logic["testJson"], editor=wanted)
        if wanted == "form" and not form.shows_all:
            form = TestForm(initial_data=logic["testJson"], editor="json")
            form.editor_note = STAYS_JSON
    context = {"world": world, "form": form}
    return render_page(request, EDIT, context, partial="test-editor")


@login_required
@require_POST
def test_delete(request: AuthedRequest, world_id: int, pk: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    delete_test(get_object_or_404(WorldTest, world=world, pk=pk))
    return redirect("studio:world_tests", world.pk)


@login_required
@require_POST
def test_run(request: AuthedRequest, world_id: int) -> HttpResponse:
    """Run the world's tests on Celery; htmx gets the run panel, which polls until it ends."""
    world = get_world_for_user(request.user, world_id, write=True)
    run = start_run(world, request.user)
    if not request.htmx:
        return redirect("studio:world_tests", world.pk)
    return render_page(request, LIST, _list_context(world, run), partial="run")


@login_required
@require_GET
def run_status(request: AuthedRequest, world_id: int, run_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    run = get_object_or_404(WorldTestRun, world=world, pk=run_id)
    if not request.htmx:
        return redirect("studio:world_tests", world.pk)
    return render_page(request, LIST, _list_context(world, run), partial="run")


@login_required
@require_GET
def suite_export(request: AuthedRequest, world_id: int) -> HttpResponse:
    """The tests as the file ``python -m engine test --tests`` reads, for a creator's CI."""
    world = get_world_for_user(request.user, world_id, write=True)
    body = json.dumps(suite_json(world), ensure_ascii=False, indent=2) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="world-{world.pk}.tests.json"'
    return response
