"""Small readers for settings taken from the environment."""

import os


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
