"""``python -m config.serve``: several daphne children accepting on one port (issue 14 §1).

Which child holds a connection is read from /proc (the server side of the connection is a
socket inode in exactly one child's descriptor table), so no endpoint has to tell a client the
process id. The launcher's children run the real settings with DEBUG off, on the test's
PostgreSQL database and the real Redis channel layer."""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.integration.play_cluster import ROOT, free_port, service_env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

LAUNCHER = [sys.executable, "-m", "config.serve", "--host", "127.0.0.1"]
SERVING_TIMEOUT = 60.0  # seconds for both children to load Django and accept a connection


class Launcher:
    """``config.serve`` in a subprocess on a free loopback port, with its children's pids."""

    def __init__(
        self, processes: int, *extra: str, preexec: Callable[[], None] | None = None, **env: str
    ) -> None:
        self.port = free_port()
        self.log = Path(f"/tmp/fabula-serve-{self.port}.log")
        self.process = subprocess.Popen(
            [*LAUNCHER, "--processes", str(processes), "--port", str(self.port), *extra],
            cwd=ROOT,
            env=service_env(**env),
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
            preexec_fn=preexec,
        )
        self.children = self._wait_children(processes)
        self._wait_serving()

    def _wait_children(self, count: int, timeout: float = 30) -> list[int]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"config.serve exited: {self.log.read_text()}")
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
            pids = [int(pid) for pid in children.read_text().split()]
            if len(pids) == count:
                return pids
            time.sleep(0.1)
        raise RuntimeError(f"config.serve did not start its children: {self.log.read_text()}")

    def _wait_serving(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if self.get("/api/health")[0] == 200:
                    return
            if self.process.poll() is not None:
                raise RuntimeError(f"config.serve exited: {self.log.read_text()}")
            time.sleep(0.2)
        raise RuntimeError(f"config.serve did not serve: {self.log.read_text()}")

    def get(self, path: str) -> tuple[int, int | None]:
        """One request on its own connection: the status and the child that answered."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            return response.status, self.serving_pid(conn.sock.getsockname()[1])
        finally:
            conn.close()

    def serving_pid(self, client_port: int) -> int | None:
        return serving_pid(self.children, self.port, client_port)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, session_id: object) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/play/{session_id}/"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        for pid in self.children:  # never leave a child behind, whatever the launcher did
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _fds(pid: int) -> set[str]:
    fds = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            fds.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
    return fds


def _server_side_inode(server_port: int, client_port: int) -> str | None:
    """The inode of the accepted socket: local port is the server's, remote the client's."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, inode = fields[1], fields[2], fields[9]
            if int(local.rsplit(":", 1)[1], 16) == server_port and (
                int(remote.rsplit(":", 1)[1], 16) == client_port
            ):
                return inode
    return None


def serving_pid(children: list[int], server_port: int, client_port: int) -> int | None:
    """The child whose descriptor table holds the server side of the client's connection."""
    inode = _server_side_inode(server_port, client_port)
    if inode is None:
        return None
    owners = [pid for pid in children if f"socket:[{inode}]" in _fds(pid)]
    return owners[0] if len(owners) == 1 else None


@contextlib.contextmanager
def launched(
    processes: int, *extra: str, preexec: Callable[[], None] | None = None, **env: str
) -> Iterator[Launcher]:
    launcher: Launcher | None = None
    try:
        launcher = Launcher(processes, *extra, preexec=preexec, **env)
        yield launcher
    finally:
        if launcher is not None:
            launcher.stop()


def test_two_children_share_one_port_and_both_answer():
    with launched(2) as server:
        # A child still loading Django does not accept yet: the other one takes everything.
        seen: set[int | None] = set()
        deadline = time.monotonic() + SERVING_TIMEOUT
        while seen != set(server.children) and time.monotonic() < deadline:
            status, pid = server.get("/api/health")
            assert status == 200
            seen.add(pid)
        assert seen == set(server.children)


def test_static_files_are_served_with_debug_off_when_asked():
    with launched(1, "--static") as server:
        assert server.get("/static/css/evaluations.css")[0] == 200
    with launched(1) as server:
        assert server.get("/static/css/evaluations.css")[0] == 404


def test_a_dead_child_takes_the_launcher_and_its_siblings_down():
    with launched(2) as server:
        doomed, sibling = server.children
        os.kill(doomed, signal.SIGKILL)
        assert server.process.wait(30) != 0
        assert not Path(f"/proc/{sibling}").exists()


def test_sigterm_stops_every_child_and_exits_cleanly():
    with launched(2) as server:
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(30) == 0
        assert all(not Path(f"/proc/{pid}").exists() for pid in server.children)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_sigint_stops_a_launcher_started_in_the_background():
    """A script's ``make serve-prod &`` starts the launcher with SIGINT ignored, and exec
    passes that on: the children must still stop when the launcher forwards SIGINT."""
    with launched(2, preexec=_ignore_sigint) as server:
        server.process.send_signal(signal.SIGINT)
        assert server.process.wait(30) == 0
        assert all(not Path(f"/proc/{pid}").exists() for pid in server.children)
