"""The one way the browser tier serves Fabula: ``runserver`` (daphne) on a free loopback port.

A server is set up as ``make run`` does it: its own SQLite file copied from a migrated template
(``load_demo`` on top when ``demo``), the module's seed scripts run against it, then served.
``AppServers`` (the session fixture ``app_servers`` in conftest.py) keeps one per configuration
(template, seeds, environment) for the whole worker, so modules asking for the same one share it
instead of paying migrate, seed and boot again; it keeps the last few alive and stops the rest.
``serve`` is the same launcher as a context manager, for scripts outside pytest (bench/).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.browser.pages import signed_in_page
from tests.support.ports import free_port, wait_for_port
from tests.support.sqlite_template import copy_migrated_database

ROOT = Path(__file__).resolve().parents[2]
KEEP_ALIVE = 3  # unshared servers kept running at once: modules asking for one run in a row


@dataclass(frozen=True)
class Seed:
    """A script run with the server's environment before it serves; its last output line is JSON,
    merged into the server's info (or put under ``key``). ``argv`` follows ``python``."""

    argv: tuple[str, ...]
    stdin: bytes | None = None
    key: str | None = None


SeedLike = str | Sequence[str] | Seed


def as_seed(seed: SeedLike) -> Seed:
    if isinstance(seed, Seed):
        return seed
    return Seed((seed,) if isinstance(seed, str) else tuple(seed))


def server_env(tmp: Path, env_extra: Mapping[str, str]) -> dict[str, str]:
    """The site's environment: its own SQLite file and media, no Redis, the offline provider."""
    return {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "MEDIA_ROOT": str(tmp / "media"),
        "REDIS_URL": "",
        "DEBUG": "true",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "FABULA_PROVIDER": "offline",
        "PYTHONPATH": str(ROOT),
        **env_extra,
    }


def run_seed(seed: Seed, env: Mapping[str, str]) -> Any:
    done = subprocess.run(
        [sys.executable, *seed.argv],
        cwd=ROOT,
        env=dict(env),
        check=True,
        capture_output=True,
        input=seed.stdin,
    )
    lines = done.stdout.decode().strip().splitlines()
    return json.loads(lines[-1]) if lines else None


def run_seeds(seeds: Sequence[SeedLike], env: Mapping[str, str]) -> dict[str, Any]:
    info: dict[str, Any] = {}
    for seed in map(as_seed, seeds):
        output = run_seed(seed, env)
        if seed.key:
            info[seed.key] = output
        elif output:
            info.update(output)
    return info


@contextmanager
def serve(
    tmp: Path, *seeds: SeedLike, demo: bool = False, **env_extra: str
) -> Iterator[dict[str, Any]]:
    """Set up and serve a site in ``tmp``; yields the seeds' JSON with ``base`` (the origin),
    ``db`` (the SQLite file, to read the server's state), ``media``, ``log`` and ``env``."""
    env = server_env(tmp, env_extra)
    copy_migrated_database(tmp, demo=demo)
    info = run_seeds(seeds, env)
    port = free_port()
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log)
        paths = {"db": tmp / "db.sqlite3", "media": tmp / "media", "log": log}
        yield {**info, **paths, "base": f"http://127.0.0.1:{port}", "env": env}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@dataclass
class Live:
    stack: ExitStack
    seeded: dict[tuple[Seed, ...], dict[str, Any]]  # the info of each set of seeds run on it
    shared: bool  # kept for the whole session: its modules do not run one after another


class AppServers:
    """Servers for one pytest worker, one per configuration, started on first request.

    A configuration is the template, the environment and the seeds; modules whose seeds do not
    collide (each makes its own users, nothing counts on an empty site) may name a ``share``
    instead of the seeds: the first starts the server, the others' seeds run on it while it
    serves. Those are kept until the session ends; of the others, the last ``keep_alive``.
    """

    def __init__(self, root: Path, keep_alive: int = KEEP_ALIVE) -> None:
        self.root = root  # each server's database, media and log in a folder under it
        self.keep_alive = keep_alive
        self.started = 0
        self._live: OrderedDict[tuple[Any, ...], Live] = OrderedDict()

    def get(
        self, *seeds: SeedLike, demo: bool = False, share: str | None = None, **env_extra: str
    ) -> dict[str, Any]:
        """The server of this configuration (a copy of its info: callers may add to it)."""
        seeded = tuple(map(as_seed, seeds))
        key = (demo, share or seeded, tuple(sorted(env_extra.items())))
        if key not in self._live:
            private = [k for k, live in self._live.items() if not live.shared]
            while private and len(private) >= self.keep_alive:
                self._stop(private.pop(0))  # the least recently used
            stack = ExitStack()
            tmp = Path(tempfile.mkdtemp(prefix=f"site-{self.started}-", dir=self.root))
            info = stack.enter_context(serve(tmp, *seeded, demo=demo, **env_extra))
            self.started += 1
            self._live[key] = Live(stack, {seeded: info}, shared=share is not None)
        live = self._live[key]
        self._live.move_to_end(key)
        if seeded not in live.seeded:
            first = next(iter(live.seeded.values()))
            site = {k: first[k] for k in ("db", "media", "log", "base", "env")}
            live.seeded[seeded] = {**run_seeds(seeded, first["env"]), **site}
        return dict(live.seeded[seeded])

    def release(self, info: Mapping[str, Any]) -> None:
        """Stop the server that ``info`` came from now (one tied to a module's own services)."""
        for key, live in list(self._live.items()):
            if any(seeded["base"] == info["base"] for seeded in live.seeded.values()):
                self._stop(key)

    def stop_all(self) -> None:
        for key in list(self._live):
            self._stop(key)

    def _stop(self, key: tuple[Any, ...]) -> None:
        self._live.pop(key).stack.close()


CONFORMANCE_SEEDS = ("tests/browser/seed.py", "tests/browser/seed_ui_api.py")


@contextmanager
def conformance_server(tmp: Path, **env_extra: str) -> Iterator[dict[str, Any]]:
    """The conformance world of issue 15 (tests/browser/fixtures) for bench/customui*.py."""
    with serve(tmp, *CONFORMANCE_SEEDS, **env_extra) as info:
        yield info


def open_conformance_page(browser: Any, server: dict[str, Any]) -> tuple[Any, Any]:
    """Alice's play page of the conformance session, its UI rendered: (page, frame locator)."""
    page = signed_in_page(browser, server, console=None, viewport={"width": 1280, "height": 1400})
    page.console = []
    page.on("console", lambda message: page.console.append(message.text))
    page.on("pageerror", lambda error: page.console.append(f"PAGE ERROR {error}"))
    page.goto(f"{server['base']}/play/{server['session']}/")
    page.wait_for_selector(".conn[data-state=online]", timeout=15000)
    frame = page.frame_locator(".play-custom iframe")
    frame.locator("#entries", has_text="map-note").wait_for(timeout=15000)
    return page, frame
