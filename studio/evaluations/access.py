"""Who may see an evaluation: its owner, on a world they may still write. Fail closed: 404 for
an evaluation that is not theirs (its existence does not leak), 403 for a world now read-only."""

from __future__ import annotations

from typing import Any

from django.http import Http404

from studio.access import get_world_for_user
from studio.evaluations.models import Evaluation, EvaluationGame
from studio.models import World


def get_evaluation_for_user(user: Any, world_id: int, evaluation_id: int) -> Evaluation:
    world: World = get_world_for_user(user, world_id, write=True)
    evaluation = (
        Evaluation.objects.filter(pk=evaluation_id, world=world, owner_id=getattr(user, "pk", None))
        .select_related("world")
        .first()
    )
    if evaluation is None:
        raise Http404("evaluation not found")
    return evaluation


def get_game_for_user(user: Any, world_id: int, evaluation_id: int, game_id: int) -> EvaluationGame:
    evaluation = get_evaluation_for_user(user, world_id, evaluation_id)
    game = evaluation.game_rows.filter(pk=game_id).first()
    if game is None:
        raise Http404("game not found")
    return game
