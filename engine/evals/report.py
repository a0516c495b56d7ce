"""The evaluation report (seed 001: "coste y narraciones lado a lado", "clasificó 59 errores";
issue 13 §2: counts per class per model, the worst examples with links to the transcript, cost
per action and per game, latency).

``build_report`` sums the games of each model: actions played and failed, the steps with each
error class, cost per action and per game (the master's; the automatic player's and the judge's
are counted apart), tokens and the cached share of the prompt, latency (mean, median, 90th
percentile). The worst examples are the steps whose findings weigh most (a leak or a rule
broken in what the player read weighs more than one the closure check caught). ``route_rows``
lays a route out side by side: one row per action, one cell per model. ``to_csv`` writes one
line per action. Each game carries an opaque ``ref`` the caller turns into a link.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.evals.classes import CLOSURE_CLASSES, ERROR_CLASSES, JUDGE_CLASSES
from engine.evals.transcript import Step, Transcript

WORST = 10
WEIGHTS = {"secret-leak": 5, "thinking-leak": 4, "directive-leak": 4, "unknown-name": 3}
CSV_FIELDS = (
    "model",
    "game",
    "index",
    "action",
    "tactic",
    "kind",
    "narration",
    "errors",
    "cost",
    "latency_ms",
    "model_calls",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
)


@dataclass(frozen=True)
class Game:
    """One played game as the report reads it; ``extra_cost`` is the player's and the judge's."""

    transcript: Transcript
    ref: str = ""
    extra_cost: float = 0.0


@dataclass
class ModelSummary:
    model: str
    games: int = 0
    actions: int = 0
    failed: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    error_total: int = 0
    cost: float = 0.0
    cost_per_action: float = 0.0
    cost_per_game: float = 0.0
    extra_cost: float = 0.0
    model_calls: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    cache_share: float = 0.0
    latencies: list[float] = field(default_factory=list)
    latency_mean: float = 0.0
    latency_p50: float = 0.0
    latency_p90: float = 0.0


@dataclass
class Example:
    model: str
    ref: str
    game: int
    index: int
    action: str
    narration: str
    classes: list[str]
    weight: int


@dataclass
class Report:
    models: list[ModelSummary]
    classes: list[str]
    worst: list[Example]
    total_cost: float
    total_errors: int
    agreement: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self, model: str) -> ModelSummary | None:
        return next((m for m in self.models if m.model == model), None)


def build_report(games: Sequence[Game], agreement: dict[str, Any] | None = None) -> Report:
    """Sum ``games`` per model, in the order models first appear."""
    by_model: dict[str, list[Game]] = {}
    for game in games:
        by_model.setdefault(game.transcript.model, []).append(game)
    summaries = [_summary(model, played) for model, played in by_model.items()]
    seen = {c for s in summaries for c in s.errors}
    classes = [c for c in ERROR_CLASSES if c in seen]
    worst = sorted(
        (e for g in games for e in _examples(g)), key=lambda e: (-e.weight, e.model, e.index)
    )[:WORST]
    return Report(
        models=summaries,
        classes=classes,
        worst=worst,
        total_cost=sum(s.cost + s.extra_cost for s in summaries),
        total_errors=sum(s.error_total for s in summaries),
        agreement=agreement,
    )


def _summary(model: str, games: Sequence[Game]) -> ModelSummary:
    steps = [s for g in games for s in g.transcript.steps]
    played = [s for s in steps if not s.failed]
    out = ModelSummary(model=model, games=len(games), actions=len(played))
    out.failed = len(steps) - len(played)
    for step in played:
        for name in step.classes():
            out.errors[name] = out.errors.get(name, 0) + 1
    out.error_total = sum(out.errors.values())
    usage = [s.usage_object() for s in played]
    out.cost = sum(u.cost for u in usage)
    out.cost_per_action = out.cost / len(played) if played else 0.0
    out.cost_per_game = out.cost / len(games) if games else 0.0
    out.extra_cost = sum(g.extra_cost for g in games)
    out.model_calls = sum(s.model_calls for s in played)
    out.prompt_tokens = sum(u.prompt_tokens for u in usage)
    out.output_tokens = sum(u.output_tokens for u in usage)
    out.cache_share = sum(u.cache_read_tokens for u in usage) / max(1, out.prompt_tokens)
    out.latencies = [s.latency_ms for s in played]
    if out.latencies:
        out.latency_mean = statistics.fmean(out.latencies)
        out.latency_p50 = percentile(out.latencies, 50)
        out.latency_p90 = percentile(out.latencies, 90)
    return out


def percentile(values: Sequence[float], pct: float) -> float:
    """The ``pct``-th percentile by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * pct / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def step_weight(step: Step) -> int:
    """How bad a step is: leaks most, then rules broken in what was shown, judge classes, text."""
    total = 0
    for finding in step.findings:
        name = finding.error_class
        if name in WEIGHTS:
            total += WEIGHTS[name]
        elif name in CLOSURE_CLASSES:
            total += 1 if finding.detail == "caught by the closure check" else 3
        else:
            total += 2 if name in JUDGE_CLASSES else 1
    return total


def _examples(game: Game) -> list[Example]:
    out = []
    for step in game.transcript.steps:
        weight = step_weight(step)
        if weight:
            out.append(
                Example(
                    model=game.transcript.model,
                    ref=game.ref,
                    game=game.transcript.game,
                    index=step.index,
                    action=step.action,
                    narration=step.narration,
                    classes=step.classes(),
                    weight=weight,
                )
            )
    return out


def route_rows(transcripts: Sequence[Transcript]) -> list[dict[str, Any]]:
    """A route side by side: ``{"index", "action", "cells": [step or None per model]}``."""
    length = max((len(t.steps) for t in transcripts), default=0)
    rows = []
    for index in range(length):
        cells = [t.steps[index] if index < len(t.steps) else None for t in transcripts]
        action = next((c.action for c in cells if c is not None), "")
        rows.append({"index": index, "action": action, "cells": cells})
    return rows


def to_csv(games: Sequence[Game]) -> str:
    """One line per action of every game, with its classes joined by ``;``."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for game in games:
        for step in game.transcript.steps:
            usage = step.usage_object()
            writer.writerow(
                {
                    "model": game.transcript.model,
                    "game": game.transcript.game,
                    "index": step.index,
                    "action": step.action,
                    "tactic": step.tactic or "",
                    "kind": step.kind,
                    "narration": step.narration if not step.failed else f"[failed] {step.error}",
                    "errors": ";".join(step.classes()),
                    "cost": f"{usage.cost:.6f}",
                    "latency_ms": f"{step.latency_ms:.1f}",
                    "model_calls": step.model_calls,
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "cache_read_tokens": usage.cache_read_tokens,
                    "cache_write_tokens": usage.cache_write_tokens,
                }
            )
    return out.getvalue()
