"""The fault suite (issue 17): a Celery worker killed mid-compaction never blocks the player,
and its task is delivered again (see test_faults.py for the suite)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from play.models import Session
from tests.integration import faults
from tests.integration.fault_clients import (
    FaultRow,
    Player,
    audit_session,
    check,
)
from tests.integration.faults import (
    RUNS,
    Table,
    Worker,
    fault_env,
    start_daphne,
)
from tests.support.model_server import ModelServer, ReceivedRequest, Reply

SUMMARY_MARK = "Summarise the story so far"

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180 + 90 * RUNS)]

audit = sync_to_async(audit_session)
# The shared fixtures: pytest finds them among the module's names.
close_connections, model, own_redis, table = (
    faults.close_connections,
    faults.model,
    faults.own_redis,
    faults.table,
)


# --- 4. a Celery worker killed mid-compaction ------------------------------------------------


@sync_to_async
def _played_before(table: Table, sid: str, turns: int) -> None:
    """Earlier turns, so that the next one makes a compaction due."""
    from engine.turn import TurnResult
    from play.replies import commit_turn, prepare_turn
    from play.sessions import Player as Who

    for i in range(turns):
        plan = prepare_turn(sid, Who(table.alice.pk), "message", f"Walk on ({sid[:8]}), step {i}.")
        text = f"You walk on through the salt and the wind, step {i} of the long road."
        commit_turn(plan, TurnResult(text=text, raw=text, state=plan.state), 1, None)


@sync_to_async
def _compaction(sid: str) -> tuple[str, list[int]]:
    session = Session.objects.get(pk=sid)
    folded = list(session.messages.filter(compacted=True).values_list("position", flat=True))
    return str(session.state.get("compaction_summary") or ""), folded


async def test_a_worker_killed_mid_compaction_never_blocks_the_player(model, own_redis, table):
    """The killed worker held the session (a busy send) and its task waited for some later
    worker start; now the player is never busy and another worker redelivers within a minute."""
    row = FaultRow("Celery worker kill -9 mid-compaction")
    summaries: list[Reply] = []

    def route(request: ReceivedRequest) -> Reply | None:
        if SUMMARY_MARK not in str(request.body):
            return None
        return summaries.pop(0) if summaries else Reply(text="The road goes on.")

    model.route = route
    env = fault_env(
        own_redis.url,
        model,
        FABULA_COMPACTION_TOKENS="60",
        CELERY_VISIBILITY_TIMEOUT="5",
        CELERY_RESTORE_INTERVAL="1",
    )
    server = await start_daphne(env)
    broker = own_redis.client()
    worker = Worker(env, "worker0")  # the one to kill; each rescuer is the next round's
    try:
        for run in range(RUNS):
            sid = await sync_to_async(table.new_session)()
            await _played_before(table, sid, 4)
            summaries[:] = [Reply(text=f"Summary {run}. " * 10, chunk_size=4, delay=0.2)]
            player = Player(server, sid, table.cookie)
            await player.start()
            asked = len(model.requests)
            reply1 = await player.send_turn(f"hit-{run}-1")
            assert reply1 is not None
            await player.wait_end(reply1)
            await _wait_for_summary_request(model, asked, sid[:8], worker)
            killed = time.monotonic()
            worker.kill()
            reply2 = await player.send_turn(f"hit-{run}-2")
            assert reply2 is not None, "the player waited on the dead worker's lock"
            ended, _ = await player.wait_end(reply2)
            worker = Worker(env, f"worker{run + 1}")
            redelivered = await _wait_compacted(sid, broker)
            summary, folded = await _compaction(sid)
            assert summary.startswith(("The road goes on.", f"Summary {run}."))
            assert folded == list(range(folded[0], folded[0] + len(folded))), folded
            result = await audit(sid)
            row.add(result, ended - killed, redelivered=redelivered - killed)
            check(row, result, ended - killed)
            assert result.complete == 6, result
            await player.stop()
    finally:
        worker.stop()
        server.stop()
        broker.close()
        row.report()


async def _wait_for_summary_request(
    model: ModelServer, since: int, mark: str, worker: Worker
) -> None:
    """Until the worker asks the model to summarise a story that contains ``mark``."""
    deadline = time.monotonic() + 60
    while not any(
        SUMMARY_MARK in str(r.body) and mark in str(r.body) for r in model.requests[since:]
    ):
        assert worker.process.poll() is None, worker.log_path.read_text()[-3000:]
        assert time.monotonic() < deadline, "the worker never asked for a summary"
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)  # mid-summary


async def _wait_compacted(sid: str, broker: Any, timeout: float = 90) -> float:
    """When the summary is saved and every task, the killed one too, is acknowledged."""
    deadline = time.monotonic() + timeout
    while True:
        summary, folded = await _compaction(sid)
        unacked = await asyncio.to_thread(broker.hlen, "unacked")
        queued = await asyncio.to_thread(broker.llen, "celery")
        if summary and folded and unacked == 0 and queued == 0:
            return time.monotonic()
        assert time.monotonic() < deadline, (summary, folded, unacked, queued)
        await asyncio.sleep(0.2)
