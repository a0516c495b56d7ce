"""A Fabula server for a browser test module: its own SQLite file, ``migrate`` then
``load_demo`` as ``make run`` does, a seed script, then ``runserver`` (daphne) on a free port."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.ports import free_port, wait_for_port
from tests.support.sqlite_template import copy_migrated_database

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def demo_server(tmp: Path, seed: str | list[str], **env_extra: str) -> Iterator[dict[str, Any]]:
    """Serve the demo worlds; yields the seed's JSON output with ``base`` added. ``seed`` is a
    script's path, or the arguments after ``python`` (``["-c", code]``)."""
    env = {
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
    python = sys.executable
    copy_migrated_database(tmp, demo=True)
    argv = [seed] if isinstance(seed, str) else seed
    seeded = subprocess.run([python, *argv], cwd=ROOT, env=env, check=True, capture_output=True)
    info: dict[str, Any] = json.loads(seeded.stdout.decode().strip().splitlines()[-1])
    port = free_port()
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log)
        info["base"] = f"http://127.0.0.1:{port}"
        yield info
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
