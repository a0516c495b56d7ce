"""The directive tester: paste a model reply, see the clean text, state diff, audio, skips, and
what the turn's rules and reactions would then do (studio.dryrun)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.views.decorators.http import require_http_methods

from studio.access import get_world_for_user
from studio.dryrun import run_rules_after
from studio.forms import TesterForm
from studio.live import default_values, try_reply
from studio.views.common import AuthedRequest, posted, render_page


@login_required
@require_http_methods(["GET", "POST"])
def directive_tester(request: AuthedRequest, world_id: int) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    form = TesterForm(posted(request), initial={"state": default_values(world)})
    tried = rules = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        tried = try_reply(world, reply=data["reply"], values=data["state"])
        rules = run_rules_after(
            world,
            tried,
            values=data["state"],
            player_message=data["message"],
            turn=data["turn"] or 1,
        )
    context = {"world": world, "tester_form": form, "tested": tried, "rules_run": rules}
    context["section"] = "tester"
    return render_page(request, "studio/tester.html", context, partial="tester-result")
