"""Fault injection for the integration tier (issue 17): a Redis of the test's own to kill -9 and
restart, a TCP proxy in front of PostgreSQL to cut, Celery workers to kill, and the daphnes, the
environment, the player and the sessions the fault tests share (fault_clients.py has the
reconnecting client and the audit; the fixtures are at the end).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.test import Client

from play.sessions import start_session
from tests.factories import make_user, make_world
from tests.integration.play_cluster import ROOT, VENV_BIN, Daphne, free_port, service_env
from tests.play.conftest import PLAY_WORLD_ENTRIES, PLAY_WORLD_RULES, PLAY_WORLD_VARIABLES
from tests.support.model_server import ModelServer, Reply

RUNS = int(os.environ.get("FABULA_FAULT_RUNS", "3"))
HIT = "[health: -5]"
HIT_TEXT = "You are hit."  # how a reply that applied HIT begins once its directive is stripped


class PatientDaphne(Daphne):
    """A daphne that may take its time to start on a busy machine."""

    def _wait_ready(self, timeout: float = 180) -> None:
        try:
            super()._wait_ready(timeout)
        except BaseException:
            self.stop()  # no stray server when it did not come up
            raise


# --- Redis -----------------------------------------------------------------------------------


class RedisServer:
    """A redis-server of the test's own on a free port, empty on every start."""

    def __init__(self) -> None:
        self.port = free_port()
        self.log_path = Path(f"/tmp/fabula-redis-{self.port}.log")
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=5)

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                    *("--save", "", "--appendonly", "no", "--daemonize", "no"),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 15
        with contextlib.closing(self.client()) as client:
            while True:
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def restart(self) -> float:
        """kill -9, then start again on the same port; returns when it answers again."""
        self.kill()
        self.start()
        return time.monotonic()


# --- PostgreSQL ------------------------------------------------------------------------------


class PgProxy:
    """A TCP proxy to PostgreSQL: ``cut()`` resets every connection and refuses new ones, as a
    database that went down does; ``restore()`` lets them through again. Only the processes that
    connect through it see the outage, so other tests on the same server are not disturbed."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = free_port()
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self.restore()

    def restore(self) -> float:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        listener.settimeout(0.1)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return time.monotonic()

    def cut(self) -> float:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            conns, self._conns = self._conns, set()
        for conn in conns:
            with contextlib.suppress(OSError):
                # Linger 0: the close is a reset, as when the server dies.
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.close()
        return time.monotonic()

    def _accept(self, listener: socket.socket) -> None:
        while self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            server = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            client.close()
            return
        server.settimeout(None)
        client.settimeout(None)
        with self._lock:
            self._conns.update((client, server))
        threading.Thread(target=_pipe, args=(server, client), daemon=True).start()
        _pipe(client, server)

    def stop(self) -> None:
        self.cut()


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.close()


# --- Celery ----------------------------------------------------------------------------------


class Worker:
    """A Celery worker (solo pool) with a log of its own."""

    def __init__(self, env: dict[str, str], name: str) -> None:
        self.log_path = Path(f"/tmp/fabula-celery-{name}-{os.getpid()}.log")
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                [
                    *(str(VENV_BIN / "celery"), "-A", "config", "worker", "-P", "solo"),
                    *("--loglevel=INFO", "--without-gossip", "--without-mingle"),
                    *("-n", f"{name}@%h"),
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def kill(self) -> None:
        """SIGKILL: the task it runs is neither finished nor acknowledged."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


# --- what the fault tests share ---------------------------------------------------------------


def hit_reply(seconds: float) -> Reply:
    """A reply that takes about ``seconds`` to stream and costs 5 health."""
    filler = "The wind howls over the salt. "
    chunks = max(4, int(seconds / 0.05))
    text = f"You are hit. {HIT} " + filler * max(1, chunks * 6 // len(filler))
    return Reply(text=text, chunk_size=6, delay=0.05)


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


# Fixtures: a test module takes them in as module names (``model = faults.model``).


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


@pytest.fixture
async def table() -> Table:
    return await sync_to_async(Table)()
