"""The evaluation pages (issue 13 §2): start one, follow its progress live, read the report with
its plots and κ, open a game's transcript, export CSV and JSON. Only the world's owner sees them
(studio.evaluations.access, first line of every view)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from engine.evals.classes import DESCRIPTIONS
from engine.evals.transcript import Step
from studio.access import get_world_for_user
from studio.evaluations.access import get_evaluation_for_user, get_game_for_user
from studio.evaluations.choices import key_label
from studio.evaluations.forms import EvaluationForm
from studio.evaluations.models import Evaluation
from studio.evaluations.reporting import (
    PLOTS,
    export_csv,
    export_json,
    games_of,
    kappa_figure,
    plot_svgs,
    report_of,
    side_by_side,
)
from studio.evaluations.service import cancel_evaluation, progress_of, start_evaluation
from studio.evaluations.spending import Refused
from studio.models import World
from studio.views.common import AuthedRequest, posted, render_page
from studio.worlds import world_to_definition

RECENT = 20


def _list_page(
    request: AuthedRequest, world: World, form: EvaluationForm, status: int = 200
) -> HttpResponse:
    runs = Evaluation.objects.filter(world=world, owner=request.user)[:RECENT]
    context = {"world": world, "form": form, "runs": runs, "section": "evaluations"}
    return render(request, "studio/evaluations/list.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def evaluation_list(request: AuthedRequest, world_id: int) -> HttpResponse:
    """The start form and the runs so far; a valid POST starts a run and opens its page."""
    world = get_world_for_user(request.user, world_id, write=True)
    form = EvaluationForm(
        posted(request), user_id=request.user.pk, world=world, definition=world_to_definition(world)
    )
    if request.method == "POST" and form.is_valid():
        try:
            evaluation = start_evaluation(request.user, world, form.request())
        except Refused as exc:  # the site key's quota or budget, with the numbers
            form.add_error(None, str(exc))
        else:
            return redirect("studio:evaluation", world.pk, evaluation.pk)
    return _list_page(request, world, form, status=400 if request.method == "POST" else 200)


def _detail_context(evaluation: Evaluation) -> dict[str, object]:
    games = games_of(evaluation)
    report = report_of(evaluation, games)
    return {
        "world": evaluation.world,
        "evaluation": evaluation,
        "progress": progress_of(evaluation),
        "report": report,
        "plots": plot_svgs(report) if any(g.transcript.steps for g in games) else {},
        "kappa": kappa_figure(evaluation),
        "games": games,
        "rows": side_by_side(games) if evaluation.kind == "route" else [],
        "models": [key_label(str(k)) for k in evaluation.model_keys],
        "descriptions": DESCRIPTIONS,
        "section": "evaluations",
    }


@login_required
@require_GET
def evaluation_detail(request: AuthedRequest, world_id: int, evaluation_id: int) -> HttpResponse:
    """The run: its live progress bar while it runs, the report as far as it went."""
    evaluation = get_evaluation_for_user(request.user, world_id, evaluation_id)
    return render(request, "studio/evaluations/detail.html", _detail_context(evaluation))


@login_required
@require_GET
def evaluation_progress(request: AuthedRequest, world_id: int, evaluation_id: int) -> HttpResponse:
    """The progress bar alone (htmx polls it); once the run ends, the page reloads for the
    report (``HX-Refresh``)."""
    evaluation = get_evaluation_for_user(request.user, world_id, evaluation_id)
    context = {
        "world": evaluation.world,
        "evaluation": evaluation,
        "progress": progress_of(evaluation),
    }
    response = render_page(request, "studio/evaluations/detail.html", context, partial="progress")
    if request.htmx and evaluation.is_final and request.GET.get("live"):
        response["HX-Refresh"] = "true"
    return response


@login_required
@require_POST
def evaluation_cancel(request: AuthedRequest, world_id: int, evaluation_id: int) -> HttpResponse:
    evaluation = get_evaluation_for_user(request.user, world_id, evaluation_id)
    cancel_evaluation(evaluation)
    return redirect("studio:evaluation", world_id, evaluation.pk)


@login_required
@require_GET
def evaluation_game(
    request: AuthedRequest, world_id: int, evaluation_id: int, game_id: int
) -> HttpResponse:
    """One game's transcript: every action, what the player tried, what was found."""
    game = get_game_for_user(request.user, world_id, evaluation_id, game_id)
    evaluation = game.evaluation
    steps = [Step.from_dict(row.step) for row in game.action_rows.order_by("index")]
    context = {
        "world": evaluation.world,
        "evaluation": evaluation,
        "game": game,
        "model": key_label(str(evaluation.model_keys[game.model_index])),
        "steps": steps,
        "descriptions": DESCRIPTIONS,
        "section": "evaluations",
    }
    return render(request, "studio/evaluations/game.html", context)


@login_required
@require_GET
def evaluation_export(
    request: AuthedRequest, world_id: int, evaluation_id: int, fmt: str
) -> HttpResponse:
    """The results as CSV (one line per action) or JSON (the report and every transcript)."""
    evaluation = get_evaluation_for_user(request.user, world_id, evaluation_id)
    if fmt == "csv":
        response = HttpResponse(export_csv(evaluation), content_type="text/csv; charset=utf-8")
    elif fmt == "json":
        response = HttpResponse(export_json(evaluation), content_type="application/json")
    else:
        raise Http404("unknown format")
    name = f"evaluation-{evaluation.pk}.{fmt}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
@require_GET
def evaluation_plot(
    request: AuthedRequest, world_id: int, evaluation_id: int, name: str
) -> HttpResponse:
    """One plot as an SVG file, drawn on the server."""
    evaluation = get_evaluation_for_user(request.user, world_id, evaluation_id)
    if name not in PLOTS:
        raise Http404("unknown plot")
    svg = plot_svgs(report_of(evaluation))[name]
    response = HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="evaluation-{evaluation.pk}-{name}.svg"'
    )
    return response
