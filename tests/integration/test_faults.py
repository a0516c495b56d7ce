"""The fault suite (issue 17), turns: Redis restarted mid-turn, a daphne killed mid-turn (on
this machine and as if on another), PostgreSQL gone at commit. test_faults_compaction.py kills a
Celery worker mid-compaction; test_faults_page.py restarts Redis under the play page in Chromium.

Real PostgreSQL, a real Redis started by the test on its own port, daphne processes, Celery
workers and the loopback streaming model. Each fault plays ``FABULA_FAULT_RUNS`` rounds (3 by
default) on fresh sessions and checks, every round: no lost update, no duplicated message, no
half-applied state, and an end frame for every client within 10 s of the fault ending.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from play.models import Message
from play.sessions import STALE_ERROR
from tests.integration import faults
from tests.integration.fault_clients import (
    FaultRow,
    Player,
    audit_session,
    check,
)
from tests.integration.faults import (
    RUNS,
    PgProxy,
    Table,
    fault_env,
    hit_reply,
    start_daphne,
)
from tests.integration.play_cluster import Daphne
from tests.integration.play_cluster import test_database_url as database_url
from tests.support.model_server import ModelServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180 + 90 * RUNS)]

audit = sync_to_async(audit_session)
# The shared fixtures: pytest finds them among the module's names.
close_connections, model, own_redis, table = (
    faults.close_connections,
    faults.model,
    faults.own_redis,
    faults.table,
)


# --- 1. Redis restarted mid-turn -------------------------------------------------------------


async def test_redis_restarted_mid_turn_loses_no_update(model, own_redis, table):
    """The lock is gone with Redis; a second socket's send must not run a second turn on the
    state the first one started from (two hits from 100 used to end at 95)."""
    row = FaultRow("Redis restarted mid-turn, 2nd socket sends")
    env = fault_env(own_redis.url, model)
    a, b = await asyncio.gather(start_daphne(env), start_daphne(env))
    try:
        for run in range(RUNS):
            sid = await sync_to_async(table.new_session)()
            first, second = Player(a, sid, table.cookie), Player(b, sid, table.cookie)
            await asyncio.gather(first.start(), second.start())
            model.script([hit_reply(6.0)])
            reply1 = await first.send_turn(f"hit-{run}-1")
            assert reply1 is not None
            await asyncio.sleep(1.0)
            restarted = await asyncio.to_thread(own_redis.restart)
            await second.settle_after(restarted)
            reply2 = await second.send_turn(f"hit-{run}-2")
            row.count("2nd send busy" if reply2 is None else "2nd send ran after the 1st")
            if reply2 is None:  # busy: the first turn still holds the session; wait, send again
                await second.wait_end(reply1)
                reply2 = await second.send_turn(f"hit-{run}-2")
            assert reply2 is not None
            ends = [
                await first.wait_end(reply1),
                await second.wait_end(reply1),
                await first.wait_end(reply2),
                await second.wait_end(reply2),
            ]
            result = await audit(sid)
            latencies = [t - restarted for t, _ in ends[:2]]
            row.add(result, *latencies)
            check(row, result, *latencies)
            assert result.complete == 2, result
            await asyncio.gather(first.stop(), second.stop())
    finally:
        a.stop()
        b.stop()
        row.report()


async def test_a_lease_takes_its_lock_back_after_redis_restarts(own_redis, settings):
    from play.locks import KEY_PREFIX, RedisLocks

    settings.FABULA_TURN_LOCK_TTL_MS = 300
    lease = await RedisLocks(own_redis.url).acquire("restarted")
    assert lease is not None
    await asyncio.to_thread(own_redis.restart)
    with own_redis.client() as probe:
        # The restart forgot the key; on a loaded machine the lease's renewer may already have
        # put it back before this probe connects: never anyone else's token.
        assert probe.get(KEY_PREFIX + "restarted") in (None, lease.token.encode())
        await asyncio.sleep(0.6)  # a renewal or two later
        assert probe.get(KEY_PREFIX + "restarted") == lease.token.encode()
        assert not lease.lost
        await lease.release()
        assert not probe.exists(KEY_PREFIX + "restarted")


# --- 2. a daphne killed mid-turn -------------------------------------------------------------


async def _killed_mid_turn(
    model: ModelServer,
    redis_url: str,
    table: Table,
    row: FaultRow,
    doomed_env: dict[str, str],
    survivor_env: dict[str, str],
) -> None:
    env = fault_env(redis_url, model, **doomed_env)
    booted: list[asyncio.Future[Daphne]] = []

    def boot() -> asyncio.Future[Daphne]:
        """The next process to kill, started while the last one's round finishes."""
        booted.append(asyncio.ensure_future(start_daphne(env)))
        return booted[-1]

    next_doomed = boot()
    survivor = await start_daphne(fault_env(redis_url, model, **survivor_env))
    try:
        for run in range(RUNS):
            doomed = await next_doomed
            sid = await sync_to_async(table.new_session)()
            player = Player(doomed, sid, table.cookie)
            watcher = Player(survivor, sid, table.cookie)
            await asyncio.gather(player.start(), watcher.start())
            model.script([hit_reply(6.0)])
            reply1 = await player.send_turn(f"hit-{run}-1")
            assert reply1 is not None
            await asyncio.sleep(1.0)
            player.server = survivor  # the load balancer sends it to the live process
            killed = time.monotonic()
            doomed.kill()
            if run + 1 < RUNS:
                next_doomed = boot()
            ends = [await player.wait_end(reply1), await watcher.wait_end(reply1)]
            assert [status for _, status in ends] == ["failed", "failed"]
            reply2 = await player.send_turn(f"hit-{run}-2")
            assert reply2 is not None, "the session stayed busy after its turn was failed"
            await player.wait_end(reply2)
            result = await audit(sid)
            latencies = [t - killed for t, _ in ends]
            row.add(result, *latencies)
            check(row, result, *latencies)
            assert (result.complete, result.failed) == (1, 1), result
            failed = await sync_to_async(Message.objects.get)(pk=reply1)
            assert failed.error == STALE_ERROR
            await asyncio.gather(player.stop(), watcher.stop())
    finally:
        survivor.stop()
        for started in await asyncio.gather(*booted, return_exceptions=True):
            if isinstance(started, Daphne):
                started.stop()
        row.report()


async def test_a_daphne_killed_mid_turn_fails_its_reply_at_once(model, own_redis, table):
    """Same machine: the survivor sees the owner's pid is gone and takes the turn over."""
    row = FaultRow("daphne kill -9 mid-turn (same machine)")
    await _killed_mid_turn(model, own_redis.url, table, row, {}, {})


async def test_a_daphne_of_another_machine_killed_mid_turn_goes_stale(model, own_redis, table):
    """Another machine's pid cannot be checked: its heartbeat going stale gives it away."""
    row = FaultRow("daphne kill -9 mid-turn (other machine)")
    quick = {"FABULA_TURN_HEARTBEAT_SECONDS": "1", "FABULA_TURN_STALE_SECONDS": "5"}
    await _killed_mid_turn(
        model,
        own_redis.url,
        table,
        row,
        {**quick, "FABULA_HOST_ID": "another-machine"},
        quick,
    )


# --- 3. PostgreSQL down at commit ------------------------------------------------------------


async def test_postgres_down_at_commit_still_ends_the_turn(model, own_redis, table):
    """The commit fails and so does marking the failure; the socket hears at once, the row is
    marked failed once the database is back, and the state is untouched."""
    row = FaultRow("PostgreSQL down at commit")
    s = connection.settings_dict
    proxy = PgProxy((s["HOST"] or "127.0.0.1", int(s["PORT"] or 5432)))
    url = database_url().replace(f":{s['PORT'] or 5432}/", f":{proxy.port}/")
    server = await start_daphne(fault_env(own_redis.url, model, DATABASE_URL=url))
    try:
        for run in range(RUNS):
            sid = await sync_to_async(table.new_session)()
            player = Player(server, sid, table.cookie)
            await player.start()
            model.script([hit_reply(2.5)])
            reply1 = await player.send_turn(f"hit-{run}-1")
            assert reply1 is not None
            await asyncio.sleep(0.5)
            cut = proxy.cut()
            ended, status = await player.wait_end(reply1)
            assert status == "failed"
            await asyncio.sleep(1.0)  # still down a while after the turn ended
            restored = proxy.restore()
            marked = await _wait_marked_failed(reply1)
            assert (await audit(sid)).half_applied == 0
            reply2 = await player.send_turn(f"hit-{run}-2")
            assert reply2 is not None
            await player.wait_end(reply2)
            result = await audit(sid)
            row.add(result, ended - restored, after_cut=ended - cut, marked=marked - restored)
            check(row, result, ended - restored, marked - restored)
            assert (result.complete, result.failed) == (1, 1), result
            await player.stop()
    finally:
        server.stop()
        proxy.stop()
        row.report()


async def _wait_marked_failed(message_id: int, timeout: float = 30) -> float:
    @sync_to_async
    def status() -> tuple[str, str]:
        m = Message.objects.select_related("session").get(pk=message_id)
        return m.status, m.session.turn_owner

    deadline = time.monotonic() + timeout
    while await status() != ("failed", ""):
        assert time.monotonic() < deadline, "the failed turn was never written"
        await asyncio.sleep(0.1)
    return time.monotonic()
