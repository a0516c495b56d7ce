"""An evaluation's report, plots and exports, built from its rows on demand (issue 13 §2).

Rows are read once per page (two queries) and handed to ``engine.evals.report``; nothing derived
is stored, so the report of a run still going, cancelled or stopped by its budget shows what was
played. Plots are the engine's SVG; exports are one CSV line per action and the whole report as
JSON (with κ and every transcript).
"""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from typing import Any

from engine.evals import plots
from engine.evals.report import Game, Report, build_report, route_rows, to_csv
from engine.evals.transcript import Step, Transcript
from studio.evaluations.choices import key_label
from studio.evaluations.models import Evaluation, EvaluationAction

PLOTS = ("cost", "errors", "latency")


def games_of(evaluation: Evaluation) -> list[Game]:
    """Every game as a transcript, in model then game order; ``ref`` is the game's pk."""
    actions = EvaluationAction.objects.filter(game__evaluation=evaluation).order_by("index")
    by_game: dict[int, list[EvaluationAction]] = defaultdict(list)
    for action in actions:
        by_game[action.game_id].append(action)
    keys = evaluation.model_keys
    language = str(evaluation.definition.get("language") or "en")
    out = []
    for game in evaluation.game_rows.order_by("model_index", "number"):
        rows = by_game.get(game.pk, [])
        transcript = Transcript(
            model=key_label(str(keys[game.model_index])),
            game=game.number,
            language=language,
            steps=[Step.from_dict(r.step) for r in rows],
        )
        extra = float(sum((r.extra_cost for r in rows), Decimal(0)))
        out.append(Game(transcript, ref=str(game.pk), extra_cost=extra))
    return out


def report_of(evaluation: Evaluation, games: list[Game] | None = None) -> Report:
    return build_report(games if games is not None else games_of(evaluation), _kappa(evaluation))


def _kappa(evaluation: Evaluation) -> dict[str, Any] | None:
    return dict(evaluation.agreement) if evaluation.agreement else None


def kappa_figure(evaluation: Evaluation) -> dict[str, Any] | None:
    """The κ to show beside the verdicts: the model judge's when measured, else the detectors'."""
    data = evaluation.agreement or {}
    figure = data.get("judge") or data.get("detectors")
    return dict(figure) if isinstance(figure, dict) else None


def plot_svgs(report: Report) -> dict[str, str]:
    """The three plots of the report, as SVG text."""
    counts = {m.model: m.errors for m in report.models}
    return {
        "cost": plots.bar_chart(
            "Cost per action (USD)",
            {m.model: m.cost_per_action for m in report.models},
            lambda v: f"${v:.5f}",
        ),
        "errors": plots.grouped_bars("Errors per class", report.classes, counts),
        "latency": plots.latency_plot(
            "Latency per action (ms)", {m.model: m.latencies for m in report.models}
        ),
    }


def side_by_side(games: list[Game]) -> list[dict[str, Any]]:
    """A route's rows: each action with one cell per model."""
    return route_rows([g.transcript for g in games])


def export_csv(evaluation: Evaluation) -> str:
    return to_csv(games_of(evaluation))


def export_json(evaluation: Evaluation) -> str:
    games = games_of(evaluation)
    report = report_of(evaluation, games)
    data = {
        "evaluation": {
            "id": evaluation.pk,
            "world": evaluation.world_label,
            "kind": evaluation.kind,
            "models": [key_label(str(k)) for k in evaluation.model_keys],
            "status": evaluation.status,
            "budget": float(evaluation.budget),
        },
        "report": report.to_dict(),
        "games": [{"ref": g.ref, **g.transcript.to_dict()} for g in games],
    }
    return json.dumps(data, ensure_ascii=False, indent=1)
