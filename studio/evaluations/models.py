"""The rows of an evaluation (issue 13 §2): the run, its games and each played action.

``Evaluation`` freezes what is played (the world's JSON at start, the models, the route, the
player, the judge, the budget). ``EvaluationGame`` is one game of one model. ``EvaluationAction``
is one played action: the engine's ``Step`` as JSON, the session state after it (the next action
starts there), its cost. (game, index) is unique, so a task delivered twice, or two workers that
both played an action, store it once: the tasks are idempotent per game and action.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from studio.evaluations.stops import stop_reason

KINDS = ("route", "auto")
STATUSES = ("queued", "running", "done", "cancelled", "budget", "failed", "stale")
FINAL = ("done", "cancelled", "budget", "failed", "stale")
GAME_STATUSES = ("pending", "running", "done", "failed", "stopped")
GAME_ENDED = ("done", "failed", "stopped")


def _choices(values: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(v, v) for v in values]


class Evaluation(models.Model):
    """One evaluation run of a world version."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    world = models.ForeignKey("studio.World", models.CASCADE, related_name="evaluations")
    version = models.ForeignKey(
        "studio.WorldVersion", models.SET_NULL, null=True, blank=True, related_name="+"
    )
    world_label = models.CharField(max_length=200, help_text="'draft' or the version's number.")
    definition = models.JSONField(help_text="The world played, frozen at start.")
    kind = models.CharField(max_length=5, choices=_choices(KINDS), default="route")
    model_keys = models.JSONField(default=list, help_text="offline, site:MODEL or own:MODEL.")
    route = models.JSONField(default=list, blank=True)
    games = models.PositiveIntegerField(default=1)
    actions = models.PositiveIntegerField(default=10)
    player = models.CharField(max_length=210, default="offline")
    judge = models.CharField(max_length=210, default="detectors")
    secrets = models.JSONField(default=list, blank=True)
    budget = models.DecimalField(max_digits=12, decimal_places=6, default=1)
    seed = models.PositiveIntegerField(default=0)
    status = models.CharField(
        max_length=9, choices=_choices(STATUSES), default="queued", db_index=True
    )
    error = models.TextField(blank=True, default="")
    agreement = models.JSONField(null=True, blank=True, help_text="The judge's κ on the labels.")
    agreement_cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True, db_index=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.kind} evaluation {self.pk} of {self.world_label}"

    @property
    def is_final(self) -> bool:
        return self.status in FINAL

    @property
    def stop_reason(self) -> str:
        """Why the site key's quota or budget stopped the run, in the reader's language."""
        return stop_reason(self.error)


class EvaluationGame(models.Model):
    """One game of one model (a route is one game per model)."""

    evaluation = models.ForeignKey(Evaluation, models.CASCADE, related_name="game_rows")
    model_index = models.PositiveSmallIntegerField()
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=7, choices=_choices(GAME_STATUSES), default="pending")

    class Meta:
        ordering = ["evaluation", "model_index", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "model_index", "number"], name="evaluation_game_unique"
            )
        ]

    def __str__(self) -> str:
        return f"game {self.number} of model {self.model_index}"


class EvaluationAction(models.Model):
    """One played action of a game."""

    game = models.ForeignKey(EvaluationGame, models.CASCADE, related_name="action_rows")
    index = models.PositiveIntegerField()
    step = models.JSONField(help_text="engine.evals.transcript.Step as JSON.")
    state = models.JSONField(default=dict, help_text="The session state after the action.")
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    # What the automatic player and the judge cost for this action, apart from the master's.
    extra_cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    latency_ms = models.FloatField(default=0)
    failed = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="evaluation_action_unique")
        ]

    def __str__(self) -> str:
        return f"action {self.index} of {self.game}"
