"""Fixtures and helpers of the evaluation view tests (test_evaluations*.py)."""

from __future__ import annotations

from unittest import mock

import pytest
from django.urls import reverse

from studio.demo import gm_demo_definition
from studio.evaluations.models import Evaluation
from studio.evaluations.service import Request, start_evaluation
from studio.worlds import import_world
from tests.studio.view_helpers import login
from tests.support.model_server import ModelServer, ReceivedRequest, Reply

CLOSE = "You glance about; nothing stirs but the fire."


@pytest.fixture
def gm_world(alice):
    """Alice's copy of Brackenford, the game-master demo."""
    return import_world(alice, gm_demo_definition())


@pytest.fixture
def model():
    with ModelServer() as server:
        server.route = master_route
        yield server


def master_route(request: ReceivedRequest) -> Reply | None:
    """The master closes every turn with log_event; other requests get the default reply."""
    body = request.body if isinstance(request.body, dict) else {}
    if not body.get("tools"):
        return None
    close = {"narration": CLOSE, "suggestions": ["Look around", "Wait"]}
    return Reply(text="", tool_calls=({"name": "log_event", "arguments": close},))


@pytest.fixture
def site_model(settings, model):
    settings.FABULA_PROVIDER = "openai"
    settings.FABULA_BASE_URL = model.openai_url
    settings.FABULA_MODEL = "test-model"
    settings.FABULA_API_KEY = "sk-test"
    settings.FABULA_SITE_MODELS = ["claude-haiku-4-5"]
    settings.FABULA_PROVIDER_RETRIES = 0
    settings.FABULA_EVAL_RETRY_BASE = 0
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True
    # The cast signed up today; a new account's smaller share is tested apart
    # (test_evaluation_budget.py).
    settings.FABULA_NEW_ACCOUNT_DAILY_QUOTA = 0
    return model


def url(name, world, *more):
    return reverse(f"studio:{name}", args=[world.pk, *more])


def start(client, user, world, **fields):
    data = {
        "version": "draft",
        "kind": "route",
        "models": ["offline"],
        "route": "I look around.\nI ask Hilda what news there is.\ngo south",
        "games": 2,
        "actions": 3,
        "player": "offline",
        "judge": "detectors",
        "budget": "1.00",
        "canaries": "on",
        **fields,
    }
    return login(client, user).post(url("evaluations", world), data)


def only_run(world):
    return Evaluation.objects.get(world=world)


def paused_run(user, world, models, route):
    """A run created as the start page does, not yet queued."""
    asked = Request(kind="route", model_keys=models, route=route, canaries=False)
    with mock.patch("studio.evaluations.tasks.run_evaluation.delay"):
        run = start_evaluation(user, world, asked)
    Evaluation.objects.filter(pk=run.pk).update(status="running")
    return Evaluation.objects.get(pk=run.pk)
