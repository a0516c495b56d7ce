"""The session memory's task on a real Celery worker, over real Redis and PostgreSQL (issue 13
§1): the block is written once, and a second delivery of the task writes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from play.models import Session
from play.sessions import start_session
from tests.factories import make_user, make_world
from tests.integration.play_cluster import CeleryWorker, service_env
from tests.play.conftest import PLAY_WORLD_ENTRIES, PLAY_WORLD_RULES, PLAY_WORLD_VARIABLES

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def close_connections() -> Any:
    """The test's own database connection lives in asgiref's thread; let the DB teardown go."""
    from django.db import connections

    yield
    await sync_to_async(connections.close_all)()


@sync_to_async
def played_session(turns: int) -> Session:
    from engine.turn import TurnResult
    from play.replies import commit_turn, prepare_turn
    from play.sessions import Player
    from studio.publishing import publish_world

    alice = make_user("alice")
    world = make_world(
        alice, entries=PLAY_WORLD_ENTRIES, variables=PLAY_WORLD_VARIABLES, rules=PLAY_WORLD_RULES
    )
    session = start_session(alice, publish_world(world), mode="offline", dice_seed=3)
    for i in range(turns):
        plan = prepare_turn(str(session.pk), Player(alice.pk), "message", f"Go {i}")
        text = f"You go on, step {i}. The road bends."
        commit_turn(plan, TurnResult(text=text, raw="", state=plan.state), 1, None)
    return session


@sync_to_async
def memory_of(session: Session) -> tuple[str, int]:
    session.refresh_from_db()
    return session.state["session_memory"], session.state["memory_mark"]


async def test_a_real_worker_writes_the_block_once() -> None:
    from config.celery import app as celery_app
    from play.memory import summarise_memory

    session = await played_session(3)
    worker = CeleryWorker(service_env(FABULA_MEMORY_MESSAGES="6"))
    eager, celery_app.conf.task_always_eager = celery_app.conf.task_always_eager, False
    try:
        first = await asyncio.to_thread(summarise_memory.delay(str(session.pk)).get, 60)
        again = await asyncio.to_thread(summarise_memory.delay(str(session.pk)).get, 60)
    finally:
        celery_app.conf.task_always_eager = eager
        worker.stop()

    assert first == {"session": str(session.pk), "blocks": 1, "reason": "messages"}
    assert again == {"session": str(session.pk), "blocks": 0}
    memory, mark = await memory_of(session)
    assert memory == (
        "Dawn over the salt, User.\nYou go on, step 0.\nYou go on, step 1.\nYou go on, step 2."
    )
    assert mark == 6
