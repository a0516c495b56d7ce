"""Starting, cancelling and following an evaluation (issue 13 §2): the writes views and tasks
call, one place each.

``start_evaluation`` freezes the world (the draft's JSON, or a published version's), plants code
words in its secrets when asked (engine.evals.secrets), creates every game row and queues the
run; a run on the site's key that would not fit in what is left today is refused first
(studio.evaluations.spending, ``Refused``). ``cancel_evaluation`` stops it: actions in flight
finish, no new one starts.
``progress_of`` counts actions per game for the live progress bar; a game that failed counts as
complete, one stopped from outside counts what it played.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from engine.evals.secrets import plant_canaries
from engine.world import export_world, load_world
from studio.evaluations.choices import key_label
from studio.evaluations.models import GAME_ENDED, Evaluation, EvaluationGame
from studio.evaluations.request import Request as Request
from studio.evaluations.spending import check_start
from studio.models import World
from studio.worlds import export_world_json


def start_evaluation(user: Any, world: World, asked: Request) -> Evaluation:
    """Create the run and its games, then queue it (embedded mode: studio.evaluations.background).

    Raises ``spending.Refused`` for a run on the site's key that would not fit today."""
    from studio.evaluations.background import launch

    seed = random.SystemRandom().randrange(1, 2**31)
    definition = asked.version.definition if asked.version else export_world_json(world)
    secrets = list(asked.secrets)
    if asked.canaries:
        planted, words = plant_canaries(load_world(definition), random.Random(seed))
        definition, secrets = export_world(planted), [*secrets, *words]
    route = asked.kind == "route"
    with transaction.atomic():
        check_start(user, asked, definition)
        evaluation = Evaluation.objects.create(
            owner=user,
            world=world,
            version=asked.version,
            world_label=f"v{asked.version.number}" if asked.version else "draft",
            definition=definition,
            kind=asked.kind,
            model_keys=list(asked.model_keys),
            route=list(asked.route) if route else [],
            games=1 if route else asked.games,
            actions=len(asked.route) if route else asked.actions,
            player="" if route else asked.player,
            judge=asked.judge,
            secrets=secrets,
            budget=asked.budget,
            seed=seed,
        )
        EvaluationGame.objects.bulk_create(
            EvaluationGame(evaluation=evaluation, model_index=m, number=n)
            for m in range(len(asked.model_keys))
            for n in range(evaluation.games)
        )
    launch(evaluation.pk)
    evaluation.refresh_from_db()
    return evaluation


def cancel_evaluation(evaluation: Evaluation) -> Evaluation:
    """Stop a run: no new action starts; one in flight still finishes and is kept."""
    with transaction.atomic():
        row = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
        if not row.is_final:
            row.status, row.finished = "cancelled", timezone.now()
            row.save(update_fields=["status", "finished", "updated"])
            row.game_rows.exclude(status__in=GAME_ENDED).update(status="stopped")
    return row


@dataclass(frozen=True)
class GameProgress:
    id: int
    model: str
    number: int
    done: int
    total: int
    status: str

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    games: list[GameProgress]

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def progress_of(evaluation: Evaluation) -> Progress:
    """Actions played per game (one query). A game that ended early on its own (failed)
    counts in full; one stopped from outside (cancelled, budget, stale) counts what it played,
    so a run cancelled after 6 of 48 actions reads 6 / 48."""
    rows = evaluation.game_rows.annotate(played=Count("action_rows")).order_by(
        "model_index", "number"
    )
    keys = evaluation.model_keys
    games = []
    for game in rows:
        total = evaluation.actions
        ended = game.status in GAME_ENDED and game.status != "stopped"
        done = total if ended else min(total, game.played)
        label = key_label(str(keys[game.model_index])) if game.model_index < len(keys) else "?"
        games.append(GameProgress(game.pk, label, game.number, done, total, game.status))
    return Progress(sum(g.done for g in games), sum(g.total for g in games), games)
