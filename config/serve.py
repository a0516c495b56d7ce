"""Several daphne processes on one port: ``python -m config.serve --processes N``.

One daphne process runs one asyncio loop on one core, so a machine with more cores needs more
processes. They share the port the way pre-forking servers do: this launcher binds and listens
(one SO_REUSEPORT socket per child, see ``listening_sockets``), then hands each child its
listening socket (``daphne --fd``), so no child binds anything or needs its own port. Nothing
else is shared between the children: sessions, turns and groups go through the Redis channel layer,
the Redis turn locks and PostgreSQL (set REDIS_URL and DATABASE_URL), so a socket may land on
any child (docs/SCALING.md).

The launcher restarts nothing. When a child dies it stops the others and exits non-zero, so the
supervisor above it (systemd, a container runtime) sees one failed service and restarts it
whole, with a fresh socket, instead of a half-sized server limping on. SIGTERM and SIGINT are
passed on to the children, which close their sockets and finish (daphne's own shutdown).

``--static`` makes the children also serve /static/ (Django's static files handler over the
finders): for a single machine with no proxy in front. Behind a proxy or a CDN, serve
STATIC_ROOT (``manage.py collectstatic``) from there and leave it off.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
APPLICATION = "config.asgi:application"
STATIC_APPLICATION = "config.serve:application"
STOP_GRACE_SECONDS = 15.0
PR_SET_PDEATHSIG = 1


def listening_sockets(host: str, port: int, count: int, backlog: int = 2048) -> list[socket.socket]:
    """One listening socket per child, all bound to the same address with SO_REUSEPORT.

    Bound before any child starts, so a port in use fails here, once, with a clear error. With
    one socket shared by all children, every idle child wakes for each connection and the one
    whose event loop spins most wins it (measured here: seven websockets in a row went to the
    child streaming a turn), which piles long-lived sockets on one core; with SO_REUSEPORT the
    kernel spreads connections over the sockets by a hash of their addresses. Where SO_REUSEPORT
    is missing, all children share one socket. SO_REUSEADDR lets a restarted launcher bind while
    old connections sit in TIME_WAIT.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    reuseport = hasattr(socket, "SO_REUSEPORT")
    sockets: list[socket.socket] = []
    for _ in range(count if reuseport else 1):
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuseport:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, sockets[0].getsockname()[1] if sockets else port))
        sock.listen(backlog)
        sockets.append(sock)
    return sockets * (count // len(sockets))


def _prepare_child() -> None:
    """Runs in each child before exec.

    If the launcher is killed outright (SIGKILL, OOM) its children get SIGTERM instead of
    serving on, unsupervised, from an orphaned socket. And the signals the launcher forwards
    take their default course: a launcher started in the background by a script inherits
    SIGINT ignored, exec keeps it ignored, and daphne (Twisted) then never stopped on the
    forwarded SIGINT while the launcher waited for it for ever.
    """
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.SIG_DFL)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def daphne_command(fd: int, application: str, extra: list[str]) -> list[str]:
    daphne = Path(sys.executable).with_name("daphne")
    return [str(daphne), "--fd", str(fd), *extra, application]


def start_children(
    sockets: list[socket.socket], application: str, extra: list[str]
) -> list[subprocess.Popen[bytes]]:
    """One child per socket; ``pass_fds`` hands each child its socket and nothing else."""
    preexec = _prepare_child if sys.platform.startswith("linux") else None
    return [
        subprocess.Popen(  # the launcher has no threads, so preexec_fn is safe
            daphne_command(sock.fileno(), application, extra),
            cwd=ROOT,
            pass_fds=(sock.fileno(),),
            preexec_fn=preexec,
        )
        for sock in sockets
    ]


def stop_children(children: list[subprocess.Popen[bytes]], sig: int = signal.SIGTERM) -> None:
    """Signal the live ones, wait for them, and SIGKILL whatever outlives the grace period."""
    for child in children:
        if child.poll() is None:
            child.send_signal(sig)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for child in children:
        try:
            child.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def supervise(children: list[subprocess.Popen[bytes]]) -> int:
    """Wait for the first child to end, then take the others down with it.

    A child ending on its own is a failure (its exit code, or 1 for a clean exit nobody asked
    for); after a forwarded signal the launcher exits 0 once every child has stopped.
    """
    stopping: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        # os.kill, not Popen.send_signal: that polls, reaping a child behind os.wait's back.
        stopping.append(signum)
        for child in children:
            if child.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    by_pid = {child.pid: child for child in children}
    pid, status = os.wait()
    while pid not in by_pid:
        pid, status = os.wait()
    first = by_pid[pid]
    first.returncode = os.waitstatus_to_exitcode(status)
    stop_children(children, stopping[0] if stopping else signal.SIGTERM)
    if stopping:
        return 0
    print(f"config.serve: daphne {pid} exited ({first.returncode}); stopping", file=sys.stderr)
    code = first.returncode
    return 128 - code if code < 0 else code or 1  # killed by signal N: 128+N, as a shell says


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m config.serve", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--static", action="store_true", help="also serve /static/ (no proxy)")
    parser.add_argument("daphne_args", nargs="*", help="passed to daphne, after --")
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    if args.processes > 1 and not os.environ.get("REDIS_URL"):
        # The in-memory channel layer and turn locks live in one process: a second one would
        # neither relay another's turn nor see its lock (two turns of one session at once).
        parser.error("several processes need REDIS_URL (the Redis channel layer and locks)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sockets = listening_sockets(args.host, args.port, args.processes)
    application = STATIC_APPLICATION if args.static else APPLICATION
    children = start_children(sockets, application, args.daphne_args)
    for sock in sockets:
        sock.close()  # the children hold them; a dead launcher must not keep the port open
    pids = " ".join(str(child.pid) for child in children)
    print(f"config.serve: {args.processes} daphne on {args.host}:{args.port} ({pids})", flush=True)
    return supervise(children)


def __getattr__(name: str) -> Any:
    """``config.serve:application`` for ``--static`` children, built on first access so the
    launcher itself never loads Django (its children would not share that work anyway)."""
    if name != "application":
        raise AttributeError(name)
    from config.asgi import application
    from config.static_handler import StaticFilesHandler  # a climbing path is a 400

    return StaticFilesHandler(application)


if __name__ == "__main__":
    sys.exit(main())
