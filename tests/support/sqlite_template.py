"""A migrated SQLite database for a test server, copied from one made once per pytest run.

Each browser app server (tests/browser/servers.py, started once per worker and seeds) serves its
own SQLite file, set up as ``make run`` does it: ``migrate``, and for most ``load_demo`` too.
Those two commands took 6 s and 4 s of every server's set-up, for the same bytes each time, so
the first server to ask runs them into a template (the database and its media folder) and every
server gets a copy. The copy is a file copy of a database that its
writer closed, so it holds exactly what the commands wrote.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_TEMPLATES: dict[bool, Path] = {}


def copy_migrated_database(tmp: Path, *, demo: bool = False) -> None:
    """Copy ``db.sqlite3`` (migrated; the demo loaded when ``demo``) and ``media/`` to ``tmp``."""
    template = _TEMPLATES.get(demo) or _make_template(demo)
    for source in template.glob("db.sqlite3*"):
        shutil.copy2(source, tmp / source.name)
    shutil.copytree(template / "media", tmp / "media", dirs_exist_ok=True)


def _make_template(demo: bool) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=f"fabula-db-{'demo' if demo else 'migrated'}-"))
    atexit.register(shutil.rmtree, folder, True)
    (folder / "media").mkdir()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "MEDIA_ROOT": str(folder / "media"),
        "REDIS_URL": "",
        "DEBUG": "true",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "FABULA_PROVIDER": "offline",
        "PYTHONPATH": str(ROOT),
    }
    if demo:  # the demo goes on top of the migrated template
        copy_migrated_database(folder)
        commands = [["load_demo"]]
    else:
        commands = [["migrate", "--noinput", "-v0"]]
    for command in commands:
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    _TEMPLATES[demo] = folder
    return folder
