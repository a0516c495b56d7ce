"""Classifying steps: the free detectors, then the judge (seed 001 "Después, detectores gratuitos
y un juez modelo clasifican los errores"), and the judge measured on the labelled set.

``classify_step`` merges both into one list, each class once (a detector's finding first, since
it says exactly what it saw). ``judge_labelled`` runs the same pipeline over the labelled
transcripts and returns its agreement with the labels (``engine.evals.kappa``); with the offline
judge that is the detectors' own agreement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.evals.classes import ERROR_CLASSES
from engine.evals.detectors import Context, detect_step
from engine.evals.judge import Judge
from engine.evals.kappa import Agreement, agreement
from engine.evals.labelled import Labelled
from engine.evals.secrets import collect_secrets
from engine.evals.transcript import Finding, Step
from engine.llm.base import Usage
from engine.world import WorldDefinition


def scene_line(world: WorldDefinition, step: Step) -> str:
    """Where the character stood, as the judge is told."""
    gm = world.game_master
    if gm is None or not step.location:
        return world.name
    place = gm.locations_by_id.get(step.location)
    return f"{world.name}: {place.name if place else step.location}"


async def classify_step(
    ctx: Context, step: Step, earlier: Sequence[Step], judge: Judge
) -> tuple[list[Finding], Usage]:
    """The step's findings, detectors and judge together, and what the judge cost."""
    found = detect_step(ctx, step, earlier)
    if step.failed:
        return found, Usage()
    verdict = await judge.judge(step, scene_line(ctx.world, step))
    seen = {f.error_class for f in found}
    found += [f for f in verdict.findings if f.error_class not in seen]
    return found, verdict.usage


async def judge_labelled(
    judge: Judge, labelled: Sequence[Labelled], worlds: Mapping[str, WorldDefinition]
) -> tuple[Agreement, Usage]:
    """The pipeline's agreement with the labels, over every labelled transcript whose world is
    in ``worlds``; the judge's usage."""
    truth: list[set[str]] = []
    said: list[set[str]] = []
    spent = Usage()
    for item in labelled:
        world = worlds.get(item.world)
        if world is None:
            continue
        character = item.transcript.character
        ctx = Context(world, character, tuple(collect_secrets(world, character)))
        steps = item.transcript.steps
        for n, step in enumerate(steps):
            found, usage = await classify_step(ctx, step, steps[:n], judge)
            spent = spent.plus(usage)
            said.append({f.error_class for f in found})
            truth.append(set(item.labels[n]))
    return agreement(judge.name, truth, said, ERROR_CLASSES), spent
