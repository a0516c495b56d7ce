"""What each pytest-xdist worker keeps to itself besides its test database: its Redis database.

Redis gives a server 16 numbered databases (``databases 16``, the default); worker ``gwN`` takes
the base index of REDIS_URL plus N + 1, so no worker shares the base database with a run without
xdist (a single test file run beside the suite). Pub/sub channels are shared by all of them, but
nothing here depends on a channel name another worker could use (session ids are random, kombu
prefixes its fanout channels with the database number).
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

REDIS_DATABASES = 16


def worker_redis_url(url: str, worker: str) -> str:
    """``url`` with the database of xdist worker ``worker`` (``gw0``, ``gw1``, ...)."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    index = base + 1 + int(worker.removeprefix("gw"))
    if index >= REDIS_DATABASES:
        raise RuntimeError(
            f"xdist worker {worker} would need Redis database {index} of {REDIS_DATABASES}: "
            f"run fewer workers (-n) or a lower index in REDIS_URL"
        )
    return urlunsplit(parts._replace(path=f"/{index}"))
