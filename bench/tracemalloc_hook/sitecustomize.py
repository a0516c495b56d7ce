"""Loaded by every Python process that ``bench/relay.py`` starts with ``BENCH_TRACEMALLOC``.

Python imports ``sitecustomize`` at start-up from the path, so putting this folder on
``PYTHONPATH`` reaches the daphnes behind ``config.serve`` without a line in the product. Each
SIGUSR2 dumps a tracemalloc snapshot of the process to ``$BENCH_TRACEMALLOC/<pid>-<n>.snap``
(tracing is on from start-up: the bench sets ``PYTHONTRACEMALLOC``), and beside it
``<pid>-<n>.types``, the count of live objects of each type;
``bench/tracemalloc_diff.py`` compares them.
"""

from __future__ import annotations

import collections
import gc
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
        counts = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
        lines = (f"{n:8d} {name}" for name, n in sorted(counts.items()))
        path.with_suffix(".types").write_text("\n".join(lines) + "\n")
        if os.environ.get("BENCH_TRACEMALLOC_COLLECT"):  # how much of it was cyclic garbage
            before = tracemalloc.get_traced_memory()[0]
            found = gc.collect()
            freed = before - tracemalloc.get_traced_memory()[0]
            with path.with_suffix(".types").open("a") as out:
                out.write(f"# gc.collect: {found} objects, {freed} bytes\n")
        partial.rename(path)  # complete when it appears: the bench waits for it


if _FOLDER:
    signal.signal(signal.SIGUSR2, _dump)
