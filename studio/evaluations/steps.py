"""One action of an evaluated game, from the rows to the rows (issue 13 §2: "tasks idempotent per
game and action … a budget cap that stops spending").

``run_action(game_id, index)`` holds the game's lease (play.locks: one worker plays a game at a
time; a dead worker's lease expires), then ``prepare`` reads what the action needs (nothing when
the action is already stored, the run stopped or the budget is spent), ``engine.evals`` plays it
(the automatic player's move, the action through the master or the narrator, the detectors and
the judge; each request to the site's key counted first, studio.evaluations.spending) and
``record`` stores it once: (game, index) is unique, so a task delivered twice
stores nothing twice. A provider error passes up for the task to retry; the task records the
failure when the retries are spent.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from decimal import Decimal

from channels.db import database_sync_to_async
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone

from engine.evals.classify import classify_step
from engine.evals.detectors import Context
from engine.evals.judge import Judge, ModelJudge, OfflineJudge
from engine.evals.player import ModelPlayer, ScriptedPlayer, break_schedule
from engine.evals.runner import (
    ActionFailed,
    Table,
    first_character,
    move_rng,
    next_move,
    play_step,
)
from engine.evals.secrets import collect_secrets
from engine.evals.transcript import Finding, Step
from engine.llm.base import ProviderError, Usage
from engine.session import Message, SessionState
from engine.world import WorldDefinition, load_world
from play.services import ProviderConfig, lock_backend
from studio.evaluations import choices, spending
from studio.evaluations.models import GAME_ENDED, Evaluation, EvaluationAction, EvaluationGame

LEASE_PREFIX = "evaluation-game:"


class Busy(Exception):
    """Another worker plays this game now; it will carry the game on."""


@dataclass
class Plan:
    evaluation_id: int
    game_id: int
    index: int
    world: WorldDefinition
    label: str
    master: ProviderConfig
    state: SessionState
    earlier: list[Step] = field(default_factory=list)
    route_action: str | None = None
    player: ProviderConfig | None = None
    judge: ProviderConfig | None = None
    secrets: tuple[str, ...] = ()
    seed: int = 0
    number: int = 0
    breaking: bool = False  # the game's break schedule makes this move a break attempt
    # What each request to the site's key counts against (studio.evaluations.spending).
    limits: dict[str, int] = field(default_factory=dict)


@dataclass
class Outcome:
    step: Step
    state: SessionState
    extra: Usage = field(default_factory=Usage)


async def run_action(game_id: int, index: int) -> str:
    """Play and store action ``index`` of the game; returns what happened: played, recorded
    (stored before), stopped, budget or over. Busy when the game is being played elsewhere."""
    lease = await lock_backend().acquire(f"{LEASE_PREFIX}{game_id}")
    if lease is None:
        raise Busy(game_id)
    try:
        plan = await database_sync_to_async(prepare)(game_id, index)
        if isinstance(plan, str):
            return plan
        outcome = await play(plan)
        stored = await database_sync_to_async(record)(plan, outcome)
        return "played" if stored else "recorded"
    finally:
        await lease.release()


# --- reading ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _world(evaluation_id: int, content: str) -> WorldDefinition:
    import json

    return load_world(json.loads(content))


def world_of(evaluation: Evaluation) -> WorldDefinition:
    """The frozen world, parsed once per process and run."""
    import json

    return _world(evaluation.pk, json.dumps(evaluation.definition, sort_keys=True))


def prepare(game_id: int, index: int) -> Plan | str:
    """What action ``index`` needs, or why nothing is to be played."""
    game = EvaluationGame.objects.select_related("evaluation__owner").get(pk=game_id)
    evaluation = game.evaluation
    if game.action_rows.filter(index=index).exists():
        return "recorded"
    if evaluation.is_final or game.status in GAME_ENDED:
        return "stopped"
    if index >= evaluation.actions:
        return "over"
    if spent(evaluation) >= evaluation.budget:
        stop_for_budget(evaluation)
        return "budget"
    return _plan(evaluation, game, index)


def _plan(evaluation: Evaluation, game: EvaluationGame, index: int) -> Plan:
    world = world_of(evaluation)
    rows = list(game.action_rows.filter(index__lt=index).order_by("index"))
    state = SessionState.model_validate(rows[-1].state) if rows else SessionState.initial(world)
    language, owner = world.language or "en", evaluation.owner_id
    key = str(evaluation.model_keys[game.model_index])
    EvaluationGame.objects.filter(pk=game.pk, status="pending").update(status="running")
    return Plan(
        evaluation_id=evaluation.pk,
        game_id=game.pk,
        index=index,
        world=world,
        label=choices.key_label(key),
        master=choices.provider_config(owner, key, language),
        state=state,
        earlier=[Step.from_dict(r.step) for r in rows],
        route_action=str(evaluation.route[index]) if evaluation.kind == "route" else None,
        player=_config(owner, evaluation.player, language) if evaluation.kind == "auto" else None,
        judge=_config(owner, evaluation.judge, language),
        secrets=tuple(str(s) for s in evaluation.secrets),
        seed=evaluation.seed,
        number=game.number,
        breaking=index in break_schedule(evaluation.seed, game.number, evaluation.actions),
        limits=spending.owner_limits(evaluation.owner),
    )


def _config(owner: int, key: str, language: str) -> ProviderConfig | None:
    """None for the offline player and the detectors-only judge."""
    if key in ("", choices.OFFLINE, "detectors"):
        return None
    return choices.provider_config(owner, key, language)


def spent(evaluation: Evaluation) -> Decimal:
    """What the run has cost so far: the master's, the player's, the judge's and κ."""
    sums = EvaluationAction.objects.filter(game__evaluation=evaluation).aggregate(
        cost=Sum("cost"), extra=Sum("extra_cost")
    )
    return (sums["cost"] or Decimal(0)) + (sums["extra"] or Decimal(0)) + evaluation.agreement_cost


def stop_for_budget(evaluation: Evaluation) -> None:
    with transaction.atomic():
        row = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
        if not row.is_final:
            row.status, row.finished = "budget", timezone.now()
            row.save(update_fields=["status", "finished", "updated"])
        row.game_rows.exclude(status__in=GAME_ENDED).update(status="stopped")


# --- playing ------------------------------------------------------------------------------


async def play(plan: Plan) -> Outcome:
    """The player's move (auto-play), the action, then the detectors and the judge."""
    master = spending.build(plan.master, plan.limits)
    character = first_character(plan.world)
    table = Table(
        plan.world,
        master,
        clock=timezone.now,
        timer=time.monotonic,
        character_id=character,
        seed=plan.seed + plan.number,
    )
    text, tactic, extra = await _move(plan, character)
    history = [
        m
        for s in plan.earlier
        for m in (Message("user", s.action), Message("assistant", s.narration))
    ]
    try:
        played = await play_step(table, plan.state, history, text, index=plan.index, tactic=tactic)
    except (ActionFailed, ProviderError) as exc:
        exc.move = (text, tactic)  # type: ignore[union-attr]  # the failure keeps the move
        raise
    secrets = collect_secrets(plan.world, character, plan.secrets)
    ctx = Context(plan.world, character, tuple(secrets))
    findings, judged = await _classify(ctx, played.step, plan)
    played.step.findings = findings
    return Outcome(played.step, played.state, extra.plus(judged))


async def _classify(ctx: Context, step: Step, plan: Plan) -> tuple[list[Finding], Usage]:
    """Detectors and judge; a judge that fails is not the evaluated model's fault, so the
    played step is kept, classified by the free detectors alone, with the judge's error."""
    try:
        return await classify_step(ctx, step, plan.earlier, _judge(plan))
    except ProviderError as exc:
        step.judge_error = exc.message[:500] or "the judge failed"
        return await classify_step(ctx, step, plan.earlier, OfflineJudge())


async def _move(plan: Plan, character: str | None) -> tuple[str, str | None, Usage]:
    if plan.route_action is not None:
        return plan.route_action, None, Usage()
    last = plan.earlier[-1] if plan.earlier else None
    player = (
        ModelPlayer(spending.build(plan.player, plan.limits))
        if plan.player is not None
        else ScriptedPlayer()
    )
    rng = move_rng(plan.seed, plan.number, plan.index)
    move = await next_move(player, plan.world, plan.state, character, last, rng, plan.breaking)
    return move.text, move.tactic, move.usage


def _judge(plan: Plan) -> Judge:
    if plan.judge is None:
        return OfflineJudge()
    return ModelJudge(spending.build(plan.judge, plan.limits))


# --- writing ------------------------------------------------------------------------------


def record(plan: Plan, outcome: Outcome) -> bool:
    """Store the action once; False when it was stored already (a redelivered task)."""
    step = outcome.step
    try:
        with transaction.atomic():
            EvaluationAction.objects.create(
                game_id=plan.game_id,
                index=plan.index,
                step=step.to_dict(),
                state=outcome.state.model_dump(mode="json"),
                cost=_money(step.cost),
                extra_cost=_money(outcome.extra.cost),
                latency_ms=step.latency_ms,
            )
    except IntegrityError:
        return False
    _touch(plan)
    return True


def record_failure(
    game_id: int, index: int, message: str, action: str = "", tactic: str | None = None
) -> None:
    """The action could not be played (retries spent): keep why and the player's move (its
    text and tactic, for the export), and end the game."""
    step = Step(
        index=index, action=action, tactic=tactic, error=message[:500] or "the action failed"
    )
    with transaction.atomic():
        EvaluationAction.objects.get_or_create(
            game_id=game_id,
            index=index,
            defaults={"step": step.to_dict(), "failed": True},
        )
        EvaluationGame.objects.filter(pk=game_id).update(status="failed")


def _touch(plan: Plan) -> None:
    """Mark progress: the game done after its last action, and the run's heartbeat for the
    stale sweep."""
    total = Evaluation.objects.values_list("actions", flat=True).get(pk=plan.evaluation_id)
    if plan.index + 1 >= total:
        EvaluationGame.objects.filter(pk=plan.game_id).exclude(status__in=GAME_ENDED).update(
            status="done"
        )
    Evaluation.objects.filter(pk=plan.evaluation_id).update(updated=timezone.now())


def _money(value: float) -> Decimal:
    return Decimal(str(round(value, 6)))


def all_games_ended(evaluation_id: int) -> bool:
    games = EvaluationGame.objects.filter(evaluation_id=evaluation_id)
    return not games.exclude(status__in=GAME_ENDED).exists()


def evaluation_of(game_id: int) -> int:
    return int(EvaluationGame.objects.values_list("evaluation_id", flat=True).get(pk=game_id))
