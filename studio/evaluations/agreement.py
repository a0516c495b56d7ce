"""The judge's agreement with the labelled set (issue 13 §2: "report the judge's agreement
(Cohen's κ) next to its verdicts"), measured once per run when it ends.

The detectors' κ is free and always measured; a model judge's is measured too while the budget
allows (its calls count against the run's budget). The labelled transcripts are of the two demo
worlds (engine.evals.labelled), which ``studio.demo`` ships.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from asgiref.sync import async_to_sync

from engine.evals.classify import judge_labelled
from engine.evals.judge import ModelJudge, OfflineJudge
from engine.evals.labelled import load_labelled
from engine.llm.base import Usage
from engine.world import WorldDefinition
from play.providers import ProviderConfig, build_provider
from studio.demo import demo_definition, gm_demo_definition
from studio.evaluations import choices
from studio.evaluations.models import Evaluation
from studio.evaluations.steps import spent


def labelled_worlds() -> dict[str, WorldDefinition]:
    return {"brackenford": gm_demo_definition(), "lantern": demo_definition()}


def measure_agreement(evaluation_id: int) -> dict[str, Any]:
    """Store and return the run's agreement figures; already measured: returned as stored."""
    evaluation = Evaluation.objects.get(pk=evaluation_id)
    if evaluation.agreement is not None:
        return dict(evaluation.agreement)
    config = None
    if evaluation.judge not in ("", "detectors"):
        language = str(evaluation.definition.get("language") or "en")
        config = choices.provider_config(evaluation.owner_id, evaluation.judge, language)
    affordable = spent(evaluation) < evaluation.budget
    result, usage = async_to_sync(_measure)(config if affordable else None)
    if config is not None and not affordable:
        result["judge_skipped"] = "the budget was spent before the judge could be measured"
    Evaluation.objects.filter(pk=evaluation_id).update(
        agreement=result, agreement_cost=Decimal(str(round(usage.cost, 6)))
    )
    return result


async def _measure(config: ProviderConfig | None) -> tuple[dict[str, Any], Usage]:
    labelled, worlds = load_labelled(), labelled_worlds()
    detectors, _ = await judge_labelled(OfflineJudge(), labelled, worlds)
    result: dict[str, Any] = {"detectors": detectors.to_dict()}
    if config is None:
        return result, Usage()
    judged, usage = await judge_labelled(ModelJudge(build_provider(config)), labelled, worlds)
    result["judge"] = judged.to_dict()
    return result, usage
