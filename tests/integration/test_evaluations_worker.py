"""Batch evaluations on a real Celery worker against real PostgreSQL and Redis (issue 13 §4): two
models × three games on the loopback model server, a worker killed mid-evaluation and restarted
(no action played or stored twice, none lost), and a cancelled run.

The worker is a subprocess on a Redis of the test's own (tests.integration.faults.RedisServer),
so no other test's worker takes these tasks; the test process only writes the rows and sends
the first task there. The master is the tool-calling one (Brackenford), closing each turn with
``log_event`` after a short delay, so a kill lands while an action is being played.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from django.conf import settings as django_settings

from config.celery import app
from play.providers import save_provider_setting
from studio.demo import gm_demo_definition
from studio.evaluations.models import Evaluation, EvaluationAction
from studio.evaluations.service import Request, cancel_evaluation, start_evaluation
from studio.evaluations.tasks import run_evaluation
from studio.worlds import import_world
from tests.integration.faults import RedisServer, Worker
from tests.integration.play_cluster import service_env
from tests.support.model_server import ModelServer, ReceivedRequest, Reply

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

NARRATION = "You look about; the fire crackles and nobody moves."
GAMES, ACTIONS = 3, 4
MODELS = ["site:test-model", "own:own-model"]


def master(request: ReceivedRequest) -> Reply | None:
    """Close each master turn with log_event, slowly enough to be killed in the middle."""
    body = request.body if isinstance(request.body, dict) else {}
    if not body.get("tools"):
        return None
    close = {"narration": NARRATION, "suggestions": ["Look around"]}
    return Reply(
        text="", tool_calls=({"name": "log_event", "arguments": close},), chunk_size=48, delay=0.1
    )


@pytest.fixture
def model() -> Iterator[ModelServer]:
    with ModelServer() as server:
        server.route = master
        yield server


@pytest.fixture
def broker() -> Iterator[RedisServer]:
    server = RedisServer()
    yield server
    server.kill()


@pytest.fixture
def env(model: ModelServer, broker: RedisServer) -> dict[str, str]:
    return service_env(
        REDIS_URL=broker.url,
        SECRET_KEY=django_settings.SECRET_KEY,
        FABULA_KEY_ENCRYPTION_SECRET=str(django_settings.FABULA_KEY_ENCRYPTION_SECRET),
        FABULA_ALLOW_PRIVATE_MODEL_HOSTS="true",
        FABULA_PROVIDER="openai",
        FABULA_BASE_URL=model.openai_url,
        FABULA_MODEL="test-model",
        FABULA_API_KEY="sk-test",
        FABULA_NEW_ACCOUNT_DAILY_QUOTA="0",
        FABULA_TURN_LOCK_TTL_MS="3000",
        CELERY_VISIBILITY_TIMEOUT="5",
        CELERY_RESTORE_INTERVAL="1",
    )


@pytest.fixture
def run_factory(alice: Any, model: ModelServer, broker: RedisServer, settings: Any) -> Callable:
    """Start an auto-play run of Brackenford as the start page does, queued on ``broker``."""
    settings.FABULA_ALLOW_PRIVATE_MODEL_HOSTS = True
    settings.FABULA_PROVIDER, settings.FABULA_MODEL = "openai", "test-model"
    # Alice signed up today: her first-day share (20) is smaller than this run's estimate (24).
    settings.FABULA_NEW_ACCOUNT_DAILY_QUOTA = 0
    save_provider_setting(
        alice,
        provider="anthropic",
        base_url=model.anthropic_url,
        model="own-model",
        api_key="sk-own",
    )
    world = import_world(alice, gm_demo_definition())

    def send(evaluation_id: int) -> None:
        with app.connection_for_write(broker.url) as connection:
            run_evaluation.apply_async((evaluation_id,), connection=connection)

    def start() -> Evaluation:
        asked = Request(kind="auto", model_keys=MODELS, games=GAMES, actions=ACTIONS)
        with mock.patch.object(run_evaluation, "delay", send):
            return start_evaluation(alice, world, asked)

    return start


def wait_for(check: Callable[[], Any], what: str, timeout: float = 240) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def stored(evaluation: Evaluation) -> int:
    return EvaluationAction.objects.filter(game__evaluation=evaluation).count()


def ended(evaluation: Evaluation) -> Evaluation | None:
    row = Evaluation.objects.get(pk=evaluation.pk)
    return row if row.is_final and row.agreement is not None else None


def assert_complete(evaluation: Evaluation) -> None:
    """Every game holds each of its actions exactly once, none failed."""
    for game in evaluation.game_rows.all():
        indexes = list(game.action_rows.order_by("index").values_list("index", flat=True))
        assert indexes == list(range(ACTIONS)), (game.model_index, game.number, indexes)
        assert game.status == "done"
        assert not game.action_rows.filter(failed=True).exists()


def master_calls(model: ModelServer) -> int:
    return sum(1 for r in model.requests if isinstance(r.body, dict) and r.body.get("tools"))


def test_a_worker_plays_two_models_by_three_games_to_the_report(env, run_factory, model):
    worker = Worker(env, "eval-a")
    try:
        evaluation = run_factory()
        done = wait_for(lambda: ended(evaluation), "the run to end")
    finally:
        worker.stop()

    assert done.status == "done"
    assert_complete(done)
    assert stored(done) == 2 * GAMES * ACTIONS
    paths = {r.path.rsplit("/", 1)[-1] for r in model.requests}
    assert paths == {"completions", "messages"}  # both models, one per protocol
    assert done.agreement["detectors"]["kappa"] > 0.5
    played = EvaluationAction.objects.filter(game__evaluation=done, step__kind="master")
    assert master_calls(model) == played.count()  # one call per master action, none repeated


def test_a_worker_killed_mid_evaluation_is_resumed_by_the_next_one(env, run_factory, model):
    first = Worker(env, "eval-killed")
    second = None
    try:
        evaluation = run_factory()
        wait_for(lambda: stored(evaluation) >= 5, "a few actions")
        wait_for(lambda: len(model.requests) > master_calls_at_rest(evaluation), "a call in flight")
        first.kill()
        at_kill = stored(evaluation)
        second = Worker(env, "eval-rescuer")
        done = wait_for(lambda: ended(evaluation), "the rescued run to end")
    finally:
        first.stop()
        if second is not None:
            second.stop()

    assert at_kill < 2 * GAMES * ACTIONS
    assert done.status == "done"
    assert_complete(done)  # nothing lost, nothing stored twice (and (game, index) is unique)
    played = EvaluationAction.objects.filter(game__evaluation=done, step__kind="master").count()
    assert played <= master_calls(model) <= played + 1  # at most the killed action asked again


def master_calls_at_rest(evaluation: Evaluation) -> int:
    """Model requests the stored actions account for (0 for engine moves, 1 for the master's)."""
    return EvaluationAction.objects.filter(game__evaluation=evaluation, step__kind="master").count()


def test_a_cancelled_run_stops_playing(env, run_factory, model):
    worker = Worker(env, "eval-cancel")
    try:
        evaluation = run_factory()
        wait_for(lambda: stored(evaluation) >= 2, "the first actions")
        cancel_evaluation(evaluation)
        at_cancel = stored(evaluation)
        done = wait_for(lambda: ended(evaluation), "the cancelled run to settle")
        wait_for(lambda: not evaluation.game_rows.exclude(status="stopped").exclude(
            status="done").exists(), "every game to stop")  # fmt: skip
    finally:
        worker.stop()

    assert done.status == "cancelled"
    assert stored(done) <= at_cancel + 1  # the action in flight when cancelled, at most
    assert stored(done) < 2 * GAMES * ACTIONS
    assert done.game_rows.filter(status="stopped").exists()
