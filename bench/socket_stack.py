"""What an open websocket holds in its middleware: Channels' five layers against SocketGate.

Why this exists: every open play socket keeps its ASGI middleware suspended for its whole life,
each layer with its own copy of the scope, and at 500 sessions a process holds 500 of them.
This opens ``--sockets`` websocket scopes (a browser's headers, a session cookie) through each
stack at once, each ending in an application that waits as a consumer does, and prints the
Python memory (tracemalloc) they hold per socket and the new stack's share of the old.

    .venv/bin/python bench/socket_stack.py
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import secrets
import shutil
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
DATABASE = Path(tempfile.mkdtemp(prefix="fabula-bench-")) / "db.sqlite3"
os.environ["DATABASE_URL"] = f"sqlite:///{DATABASE}"  # the sessions' table, on a file: threads
os.environ.setdefault("REDIS_URL", "")
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
for _secret in ("SECRET_KEY", "FABULA_KEY_ENCRYPTION_SECRET"):  # DEBUG off
    os.environ.setdefault(_secret, secrets.token_urlsafe(50))

HEADERS = [
    (b"host", b"127.0.0.1:8000"),
    (b"origin", b"http://127.0.0.1:8000"),
    (b"user-agent", b"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari"),
    (b"accept-language", b"en-GB,en;q=0.9,es;q=0.8"),
    (b"cookie", b"csrftoken=" + b"c" * 32 + b"; sessionid=" + b"s" * 32),
    (b"sec-websocket-key", b"dGhlIHNhbXBsZSBub25jZQ=="),
    (b"sec-websocket-version", b"13"),
]


def scope(n: int) -> dict[str, Any]:
    """What daphne hands the application for a websocket."""
    return {
        "type": "websocket",
        "path": f"/ws/play/{n}/",
        "raw_path": f"/ws/play/{n}/".encode(),
        "root_path": "",
        "headers": list(HEADERS),
        "query_string": b"",
        "client": ["127.0.0.1", 40000 + n],
        "server": ["127.0.0.1", 8000],
        "subprotocols": [],
        "asgi": {"version": "3.0"},
        "scheme": "ws",
    }


async def held_per_socket(app: Any, sockets: int) -> float:
    async def send(message: dict[str, Any]) -> None:
        return None

    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    tasks = [asyncio.create_task(app(scope(n), asyncio.Event().wait, send)) for n in range(sockets)]
    while sum(1 for _ in WAITING) < sockets:
        await asyncio.sleep(0.01)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    WAITING.clear()
    return held / sockets / 1024


WAITING: list[dict[str, Any]] = []


async def consumer(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Waits as a consumer does, keeping its scope as a consumer does."""
    WAITING.append(scope)
    await asyncio.Event().wait()


class KeepSend:
    """The layer that kept the server's send before SocketGate: a copy of the scope, an await."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        return await self.inner({**scope, "fabula.send": send}, receive, send)


class OriginCheck:
    """The Origin check's layer before SocketGate: a check and an await."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        from config.origins import origin_allowed

        assert origin_allowed(scope)
        return await self.inner(scope, receive, send)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=500)
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from channels.auth import AuthMiddlewareStack
    from channels.routing import URLRouter
    from django.urls import path

    from config.socket_gate import SocketGate

    routes = URLRouter([path("ws/play/<str:session_id>/", consumer)])
    stacks = {
        "channels (5 layers)": OriginCheck(KeepSend(AuthMiddlewareStack(routes))),
        "SocketGate (1 layer)": SocketGate(routes),
    }
    tracemalloc.start()
    figures = {}
    for name, app in stacks.items():
        asyncio.run(held_per_socket(app, args.sockets))  # warm up: imports, caches
        figures[name] = asyncio.run(held_per_socket(app, args.sockets))
    baseline = next(iter(figures.values()))
    print(f"{args.sockets} open websocket scopes, Python memory held per socket (tracemalloc)")
    for name, kib in figures.items():
        print(f"  {name:22} {kib:6.2f} KiB   {kib / baseline:5.2f}x")
    shutil.rmtree(DATABASE.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
