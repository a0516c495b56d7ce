"""The fault suite (issue 17): Redis restarted mid-turn, a daphne killed mid-turn (on this machine
and as if on another), PostgreSQL gone at commit, a Celery worker killed mid-compaction, and the
play page in Chromium across a Redis restart.

Real PostgreSQL, a real Redis started by the test on its own port, daphne processes, Celery
workers and the loopback streaming model. Each fault plays ``FABULA_FAULT_RUNS`` rounds (3 by
default) on fresh sessions and checks, every round: no lost update, no duplicated message, no
half-applied state, and an end frame for every client within 10 s of the fault ending.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection
from django.test import Client

from play.models import Message, Session
from play.sessions import STALE_ERROR, start_session
from tests.factories import make_user, make_world
from tests.integration.faults import (
    END_FRAME_LIMIT,
    HIT,
    RUNS,
    FaultRow,
    PatientDaphne,
    PgProxy,
    Player,
    RedisServer,
    Worker,
    audit_session,
)
from tests.integration.play_cluster import Daphne, service_env
from tests.integration.play_cluster import test_database_url as database_url
from tests.play.conftest import PLAY_WORLD_ENTRIES, PLAY_WORLD_RULES, PLAY_WORLD_VARIABLES
from tests.support.model_server import ModelServer, ReceivedRequest, Reply

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180 + 90 * RUNS)]

SUMMARY_MARK = "Summarise the story so far"


def hit_reply(seconds: float) -> Reply:
    """A reply that takes about ``seconds`` to stream and costs 5 health."""
    filler = "The wind howls over the salt. "
    chunks = max(4, int(seconds / 0.05))
    text = f"You are hit. {HIT} " + filler * max(1, chunks * 6 // len(filler))
    return Reply(text=text, chunk_size=6, delay=0.05)


@pytest.fixture(autouse=True)
async def close_connections() -> AsyncIterator[None]:
    from django.db import connections

    yield
    await sync_to_async(connections.close_all)()


@pytest.fixture
def model() -> Iterator[ModelServer]:
    with ModelServer(default=hit_reply(0.5)) as server:
        yield server


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    server = RedisServer()
    yield server
    server.kill()


def fault_env(redis_url: str, model: ModelServer, **extra: str) -> dict[str, str]:
    return service_env(
        REDIS_URL=redis_url,
        FABULA_TURN_LOCK_TTL_MS="12000",
        SECRET_KEY=settings.SECRET_KEY,  # the test's: it signed the session cookie
        FABULA_KEY_ENCRYPTION_SECRET=str(settings.FABULA_KEY_ENCRYPTION_SECRET),
        SECURE_SSL_REDIRECT="false",
        FABULA_ALLOW_PRIVATE_MODEL_HOSTS="true",
        FABULA_PROVIDER="openai",
        FABULA_BASE_URL=model.openai_url,
        FABULA_MODEL="test-model",
        FABULA_API_KEY="sk-test",
        **extra,
    )


async def start_daphne(env: dict[str, str]) -> Daphne:
    return await asyncio.to_thread(PatientDaphne, env)


class Table:
    """The world, the player and their cookie, and fresh sessions for each round."""

    def __init__(self) -> None:
        from studio.publishing import publish_world

        self.alice = make_user("alice")
        world = make_world(
            self.alice,
            entries=PLAY_WORLD_ENTRIES,
            variables=PLAY_WORLD_VARIABLES,
            rules=PLAY_WORLD_RULES,
        )
        self.version = publish_world(world)
        client = Client()
        client.force_login(self.alice)
        self.cookie = f"sessionid={client.cookies['sessionid'].value}"

    def new_session(self) -> str:
        return str(start_session(self.alice, self.version, mode="live", dice_seed=3).pk)


@pytest.fixture
async def table() -> Table:
    return await sync_to_async(Table)()


audit = sync_to_async(audit_session)


def check(row: FaultRow, result: Any, *latencies: float) -> None:
    assert (result.lost, result.duplicated, result.half_applied) == (0, 0, 0), result
    for latency in latencies:
        assert latency <= END_FRAME_LIMIT, f"{row.fault}: an end frame came {latency:.1f}s late"


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
        assert not probe.exists(KEY_PREFIX + "restarted")
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


# --- the play page across a Redis restart ----------------------------------------------------


@pytest.mark.browser
async def test_the_play_page_reconnects_and_resumes_the_stream_after_redis_restarts(
    model, own_redis, table, tmp_path
):
    """Every socket closes when Redis goes; the page reconnects with backoff, to a process
    that does not run the turn, and keeps showing the reply as it grows, without a reload."""
    if not os.path.exists("/usr/bin/chromium"):
        pytest.skip("needs /usr/bin/chromium")
    from playwright.async_api import async_playwright

    env = fault_env(own_redis.url, model)
    writer = await start_daphne(env)
    page_server = await asyncio.to_thread(_runserver, {**env, "DEBUG": "true"}, tmp_path)
    sid = await sync_to_async(table.new_session)()
    player = Player(writer, sid, table.cookie)
    await player.start()
    client = "document.querySelector('[data-play-root]').__fabulaPlay"
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
            )
            context = await browser.new_context()
            cookie = {"name": "sessionid", "value": table.cookie.split("=", 1)[1]}
            await context.add_cookies([{**cookie, "url": page_server[1]}])
            await context.add_init_script(
                "(() => { const W = window.WebSocket; window.__sockets = 0;"
                " window.WebSocket = function (u, p) { window.__sockets += 1;"
                " return p === undefined ? new W(u) : new W(u, p); };"
                " window.WebSocket.prototype = W.prototype;"
                " ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'].forEach("
                "k => { window.WebSocket[k] = W[k]; }); })()"
            )
            page = await context.new_page()
            await page.goto(f"{page_server[1]}/play/{sid}/")
            await page.wait_for_selector(".conn[data-state=online]", timeout=20000)
            await page.evaluate("window.__noReload = true")
            model.script([hit_reply(14.0)])
            reply = await player.send_turn("hit-page")
            assert reply is not None
            await page.wait_for_function(
                f"() => {{ const c = {client}; return c.streamingId === {reply}"
                " && c.streamText.length > 40; }",
                timeout=20000,
            )
            await asyncio.to_thread(own_redis.restart)
            await page.wait_for_function("() => window.__sockets >= 2", timeout=20000)
            await page.wait_for_selector(".conn[data-state=online]", timeout=20000)
            shown = await page.evaluate(f"{client}.streamText.length")
            await page.wait_for_function(
                f"() => {{ const c = {client}; return c.streamingId === {reply}"
                f" && c.streamText.length > {shown}; }}",
                timeout=10000,
            )
            await page.wait_for_function(
                f"() => {{ const c = {client}; const m = c.find({reply});"
                " return c.streamingId === null && m && m.status === 'complete'; }",
                timeout=30000,
            )
            assert await page.evaluate("window.__noReload === true")
            text = await page.text_content(f'[data-message-id="{reply}"] .msg-body')
            assert text is not None and "You are hit." in text
            await browser.close()
    finally:
        await player.stop()
        writer.stop()
        page_server[0].terminate()
        page_server[0].wait(10)


def _runserver(env: dict[str, str], tmp_path: Any) -> tuple[Any, str]:
    """The page's own server: daphne's runserver, which also serves static files with DEBUG."""
    import subprocess

    from tests.integration.play_cluster import ROOT, VENV_BIN, free_port

    port = free_port()
    log = (tmp_path / "runserver.log").open("w")
    process = subprocess.Popen(
        [str(VENV_BIN / "python"), "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    import socket

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, (tmp_path / "runserver.log").read_text()
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process, f"http://127.0.0.1:{port}"
        time.sleep(0.2)
    raise RuntimeError("runserver did not start")
