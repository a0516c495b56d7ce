"""Import a Fabula world JSON, a character card (PNG/JSON) or World Info as a new draft."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from studio.forms import ImportForm
from studio.importing import import_upload
from studio.views.common import AuthedRequest, files, posted, render_page


@login_required
@require_http_methods(["GET", "POST"])
def world_import(request: AuthedRequest) -> HttpResponse:
    form = ImportForm(posted(request), files(request))
    if request.method == "POST" and form.is_valid():
        outcome = import_upload(request.user, form.cleaned_data["file"])
        if outcome.world is not None:
            messages.success(request, _("Imported “%(name)s”.") % {"name": outcome.world.name})
            for warning in outcome.warnings[:10]:
                messages.warning(request, warning)
            return redirect("studio:entries", outcome.world.pk)
        form.add_error("file", outcome.error)
        for detail in outcome.details[:20]:
            form.add_error(None, detail)
    return render_page(request, "studio/import.html", {"form": form}, partial="import-form")
