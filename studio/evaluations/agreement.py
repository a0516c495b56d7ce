"""The judge's agreement with the labelled set (issue 13 §2: "report the judge's agreement
(Cohen's κ) next to its verdicts"), measured once per run when it ends.

The detectors' κ is free and always measured; a model judge's is measured too while the budget
allows (its calls count against the run's budget and, on the site's key, against the owner's
quota and the site's budget: studio.evaluations.spending). The labelled transcripts are of the
two demo worlds (engine.evals.labelled), which ``studio.demo`` ships.
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
from play.services import ProviderConfig
from studio.demo import demo_definition, gm_demo_definition
from studio.evaluations import choices, spending
from studio.evaluations.models import Evaluation
from studio.evaluations.steps import spent


def labelled_worlds() -> dict[str, WorldDefinition]:
    return {"brackenford": gm_demo_definition(), "lantern": demo_definition()}


def measure_agreement(evaluation_id: int) -> dict[str, Any]:
    """Store and return the run's agreement figures; already measured: returned as stored."""
    evaluation = Evaluation.objects.select_related("owner").get(pk=evaluation_id)
    if evaluation.agreement is not None:
        return dict(evaluation.agreement)
    config = None
    if evaluation.judge not in ("", "detectors"):
        language = str(evaluation.definition.get("language") or "en")
        config = choices.provider_config(evaluation.owner_id, evaluation.judge, language)
    # A run the site key's quota stopped (``error``) spends nothing more on it.
    affordable = spent(evaluation) < evaluation.budget and not evaluation.error
    limits = spending.owner_limits(evaluation.owner)
    result, usage = async_to_sync(_measure)(config if affordable else None, limits)
    if config is not None and not affordable:
        result["judge_skipped"] = (
            spending.stop_reason(evaluation.error)
            or "the budget was spent before the judge could be measured"
        )
    Evaluation.objects.filter(pk=evaluation_id).update(
        agreement=result, agreement_cost=Decimal(str(round(usage.cost, 6)))
    )
    return result


async def _measure(
    config: ProviderConfig | None, limits: dict[str, int]
) -> tuple[dict[str, Any], Usage]:
    labelled, worlds = load_labelled(), labelled_worlds()
    detectors, _ = await judge_labelled(OfflineJudge(), labelled, worlds)
    result: dict[str, Any] = {"detectors": detectors.to_dict()}
    if config is None:
        return result, Usage()
    judge = ModelJudge(spending.build(config, limits))
    try:
        judged, usage = await judge_labelled(judge, labelled, worlds)
    except spending.OutOfQuota as exc:
        result["judge_skipped"] = spending.stop_reason(spending.REASON_PREFIX + exc.reason)
        return result, Usage()
    result["judge"] = judged.to_dict()
    return result, usage
