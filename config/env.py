"""Small readers for settings taken from the environment."""

import contextlib
import os
import secrets
import tempfile
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw else default


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    return [part.strip() for part in raw.split(",") if part.strip()] if raw else default


def env_secret(name: str, default: str) -> str:
    """A secret from the environment, or a file named by NAME_FILE (docker/k8s secrets)."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        with open(path, encoding="utf-8") as fh:
            return fh.read().strip()
    return os.environ.get(name, default)


def required_secret(name: str, *, debug: bool, store: Path) -> str:
    """A secret from the environment; in development, one generated once per install.

    Without DEBUG a missing secret stops start-up: a made-up or published default would sign
    sessions (or encrypt users' keys) with a value an attacker can know.
    """
    value = env_secret(name, "")
    if value:
        return value
    if debug:
        return local_secret(store / name)
    raise ImproperlyConfigured(
        f"{name} is not set. With DEBUG off, Fabula does not start without it: set {name} "
        f"(or {name}_FILE, the path of a file holding it) to a long random value, e.g. the "
        'output of: python -c "import secrets; print(secrets.token_urlsafe(50))". '
        f"For local development set DEBUG=1 instead (`make run` does): a {name} is then "
        f"generated once and kept in {store}/ (git-ignored)."
    )


def local_secret(path: Path) -> str:
    """Read the secret kept at ``path``, creating it (mode 0600) on first use.

    Two processes may start at once (runserver's reloader does): the file appears whole or not
    at all, because it is written under a temporary name and linked into place.
    """
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(secrets.token_urlsafe(50) + "\n")
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
    finally:
        os.unlink(tmp)
    return path.read_text(encoding="utf-8").strip()
