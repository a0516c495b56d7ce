"""Import a Fabula world JSON, a character card (PNG/JSON) or World Info as a new draft.

After an import the page shows its report (what was mapped, dropped, what needs attention):
the POST stores it in the session and redirects (``?world=<pk>``), so a reload shows it once
and never imports twice.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from studio.forms import ImportForm
from studio.importing import ImportOutcome, import_upload
from studio.messages import translated_line
from studio.views.common import AuthedRequest, files, posted, render_page

REPORT_KEY = "studio_import_report"


@login_required
@require_http_methods(["GET", "POST"])
def world_import(request: AuthedRequest) -> HttpResponse:
    form = ImportForm(posted(request), files(request))
    if request.method == "POST" and form.is_valid():
        outcome = import_upload(request.user, form.cleaned_data["file"])
        if outcome.world is not None:
            messages.success(request, _("Imported “%(name)s”.") % {"name": outcome.world.name})
            keep_report(request, outcome)
            return redirect(f"{reverse('studio:import')}?world={outcome.world.pk}")
        form.add_error("file", translated_line(outcome.error))
        for detail in outcome.details[:20]:
            form.add_error(None, translated_line(detail))
    context = {"form": form, "report": shown_report(request)}
    return render_page(request, "studio/import.html", context, partial="import-form")


def keep_report(request: AuthedRequest, outcome: ImportOutcome) -> None:
    assert outcome.world is not None
    lines = [line.to_dict() for line in outcome.report]
    request.session[REPORT_KEY] = {
        "world": outcome.world.pk,
        "name": outcome.world.name,
        "lines": lines,
    }


def shown_report(request: AuthedRequest) -> dict[str, Any] | None:
    """The report of the import the page was redirected from, once; None otherwise."""
    if request.method != "GET" or "world" not in request.GET:
        return None
    report = request.session.get(REPORT_KEY)
    if not isinstance(report, dict) or str(report.get("world")) != request.GET["world"]:
        return None
    del request.session[REPORT_KEY]
    lines = report.get("lines") or []
    for kind in ("mapped", "dropped", "attention"):
        report[kind] = [line["message"] for line in lines if line.get("kind") == kind]
    return report
