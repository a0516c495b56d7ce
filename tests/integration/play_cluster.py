"""Helpers for the integration tier: daphne and Celery subprocesses on loopback, sharing the test
PostgreSQL database and the real Redis, and a websocket client that logs in by cookie."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.db import connection
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_database_url() -> str:
    """The URL of the database pytest-django created, so subprocesses see the test's rows."""
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def service_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=test_database_url(),
        REDIS_URL=os.environ["REDIS_URL"],
        FABULA_TURN_LOCK_TTL_MS="1500",
        DEBUG="false",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


class Daphne:
    """One daphne process serving config.asgi on a free loopback port."""

    def __init__(self, env: dict[str, str], *, wait: bool = True) -> None:
        """Start daphne; ``wait=False`` returns at once so that several can start side by side."""
        self.port = free_port()
        self.log = open(f"/tmp/daphne-{self.port}.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [
                str(VENV_BIN / "daphne"),
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "config.asgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        if wait:
            self._wait_ready()

    def _wait_ready(self, timeout: float = 60) -> None:  # as tests/support/ports.py waits
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited: {Path(self.log.name).read_text()}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 0.2),
            ):
                return
            time.sleep(0.1)
        raise RuntimeError("daphne did not start")

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, session_id: Any) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/play/{session_id}/"

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when a machine dies."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0


@contextlib.contextmanager
def daphnes(count: int, **env: str) -> Iterator[list[Daphne]]:
    servers = [Daphne(service_env(**env), wait=False) for _ in range(count)]
    try:
        for server in servers:  # they boot side by side: the wait is one start, not ``count``
            server._wait_ready()
        yield servers
    finally:
        for server in servers:
            server.stop()


class Socket:
    """A websocket client of one daphne, collecting frames."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.arrivals: list[float] = []

    async def send(self, **frame: Any) -> None:
        await self.ws.send(json.dumps(frame))

    async def receive(self, timeout: float = 10) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.frames.append(frame)
        self.arrivals.append(time.monotonic())
        return frame

    async def until(self, kind: str, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            frame = await self.receive(max(0.01, deadline - time.monotonic()))
            if frame["type"] == kind:
                return frame

    async def settle(self, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            frame = await self.receive(max(0.01, deadline - time.monotonic()))
            if frame["type"] == "message_failed" or (
                frame["type"] == "message_done" and frame["message"]["role"] == "assistant"
            ):
                return frame

    def deltas(self, message_id: int) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "delta" and f["message_id"] == message_id]

    async def close(self) -> None:
        await self.ws.close()


async def open_socket(server: Daphne, session_id: Any, cookie: str) -> tuple[Socket, Any]:
    ws = await connect(
        server.url(session_id),
        additional_headers={"Cookie": cookie, "Origin": server.origin},
        open_timeout=10,
        max_queue=None,
    )
    sock = Socket(ws)
    return sock, await sock.receive()


class CeleryWorker:
    def __init__(self, env: dict[str, str]) -> None:
        self.log = open(f"/tmp/celery-worker-{os.getpid()}.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [
                str(VENV_BIN / "celery"),
                "-A",
                "config",
                "worker",
                "-P",
                "solo",
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
