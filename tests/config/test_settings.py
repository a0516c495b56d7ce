"""Production-safe settings (config/settings.py, config/env.py), read as a server would read them:
in a fresh process, from nothing but the environment given here."""

from __future__ import annotations

import json
import os
import secrets
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from config.env import local_secret

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "SECRET_KEY": secrets.token_urlsafe(50),
    "FABULA_KEY_ENCRYPTION_SECRET": secrets.token_urlsafe(32),
    "ALLOWED_HOSTS": "fabula.example",
}
SHOW = """
import json
import django
from django.conf import settings
django.setup()
names = ["DEBUG", "SECRET_KEY", "FABULA_KEY_ENCRYPTION_SECRET", "SECURE_SSL_REDIRECT",
         "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS"]
print(json.dumps({name: getattr(settings, name) for name in names}))
"""


def run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """``args`` in a new interpreter that sees only ``env`` (none of the test run's variables)."""
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    clean |= {"DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=60
    )


def settings_of(**env: str) -> dict[str, Any]:
    done = run(["-c", SHOW], **env)
    assert done.returncode == 0, done.stderr
    shown: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return shown


def test_check_deploy_passes_with_no_warning_in_production():
    done = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **PRODUCTION)
    assert done.returncode == 0, done.stderr
    assert "System check identified no issues" in done.stdout
    assert "WARNING" not in done.stderr


def test_debug_is_off_unless_set_and_production_is_https_only():
    production = settings_of(**PRODUCTION)
    assert production["DEBUG"] is False
    assert production["SECURE_SSL_REDIRECT"] is True
    assert production["SESSION_COOKIE_SECURE"] and production["CSRF_COOKIE_SECURE"]
    assert production["SECURE_HSTS_SECONDS"] >= 365 * 24 * 3600
    development = settings_of(**PRODUCTION, DEBUG="1")  # what `make run` sets
    assert development["DEBUG"] is True
    assert development["SECURE_SSL_REDIRECT"] is False  # http://127.0.0.1:8000 keeps working
    assert not development["SESSION_COOKIE_SECURE"]
    assert development["SECURE_HSTS_SECONDS"] == 0


@pytest.mark.parametrize("missing", ["SECRET_KEY", "FABULA_KEY_ENCRYPTION_SECRET"])
def test_without_debug_a_missing_secret_stops_start_up_with_a_clear_message(missing):
    env = {name: value for name, value in PRODUCTION.items() if name != missing}
    done = run(["manage.py", "check"], **env)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"django.core.exceptions.ImproperlyConfigured: {missing} is not set")
    assert "token_urlsafe" in last and "DEBUG=1" in last


def test_a_secret_may_come_from_a_file(tmp_path):
    key_file = tmp_path / "secret_key"
    key_file.write_text("from-a-docker-secret-" + "k" * 40 + "\n")
    shown = settings_of(**{**PRODUCTION, "SECRET_KEY": "", "SECRET_KEY_FILE": str(key_file)})
    assert shown["SECRET_KEY"] == "from-a-docker-secret-" + "k" * 40


def test_development_generates_its_keys_once_per_install(tmp_path):
    store = tmp_path / "secrets"
    env = {"DEBUG": "1", "FABULA_SECRETS_DIR": str(store)}
    first, second = settings_of(**env), settings_of(**env)
    assert first["SECRET_KEY"] == second["SECRET_KEY"]
    assert first["FABULA_KEY_ENCRYPTION_SECRET"] == second["FABULA_KEY_ENCRYPTION_SECRET"]
    assert len(first["SECRET_KEY"]) >= 50
    assert first["SECRET_KEY"] != first["FABULA_KEY_ENCRYPTION_SECRET"]  # separate secrets
    for name in ("SECRET_KEY", "FABULA_KEY_ENCRYPTION_SECRET"):
        assert (store / name).read_text().strip() == first[name]
        assert stat.S_IMODE((store / name).stat().st_mode) == 0o600
    other = settings_of(DEBUG="1", FABULA_SECRETS_DIR=str(tmp_path / "another-install"))
    assert other["SECRET_KEY"] != first["SECRET_KEY"]


def test_a_generated_secret_is_written_whole_and_kept(tmp_path):
    path = tmp_path / "store" / "KEY"
    made = local_secret(path)
    assert local_secret(path) == made
    assert [p.name for p in path.parent.iterdir()] == ["KEY"]  # no temporary file left behind


def test_development_keys_stay_out_of_git_and_make_run_sets_debug():
    assert "/.secrets/" in (ROOT / ".gitignore").read_text().splitlines()
    makefile = (ROOT / "Makefile").read_text()
    assert "run: export DEBUG ?= 1" in makefile.splitlines()
