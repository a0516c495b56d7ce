"""Loaded by every Python process that ``bench/relay.py`` starts with ``BENCH_TRACEMALLOC``.

Python imports ``sitecustomize`` at start-up from the path, so putting this folder on
``PYTHONPATH`` reaches the daphnes behind ``config.serve`` without a line in the product. Each
SIGUSR2 dumps a tracemalloc snapshot of the process to ``$BENCH_TRACEMALLOC/<pid>-<n>.snap``
(tracing is on from start-up: the bench sets ``PYTHONTRACEMALLOC``);
``bench/tracemalloc_diff.py`` compares them.
"""

from __future__ import annotations

import itertools
import os
import signal
import tracemalloc
from pathlib import Path
from types import FrameType

_FOLDER = os.environ.get("BENCH_TRACEMALLOC", "")
_count = itertools.count()


def _dump(signum: int, frame: FrameType | None) -> None:
    if tracemalloc.is_tracing():
        path = Path(_FOLDER) / f"{os.getpid()}-{next(_count)}.snap"
        partial = path.with_suffix(".part")
        tracemalloc.take_snapshot().dump(str(partial))
        partial.rename(path)  # complete when it appears: the bench waits for it


if _FOLDER:
    signal.signal(signal.SIGUSR2, _dump)
