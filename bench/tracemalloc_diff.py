"""What the daphnes allocated per session between two of the relay bench's measurements.

Run: ``BENCH_TRACEMALLOC=/tmp/tm REDIS_URL=… .venv/bin/python bench/relay.py --sessions 500
--processes 2``, then ``.venv/bin/python bench/tracemalloc_diff.py /tmp/tm 500 --since 0 --at 2``.
Snapshots are numbered per process: 0 after the warm-up, 1 with every socket connected, 2
mid-reply, 3 as the first reply ends, 4 with every turn over and every socket closed. Each
allocation still alive is charged to the innermost frame of its traceback that is not the
standard library's or a site package's own plumbing, unless ``--innermost`` is given; the lines
print in bytes per session, summed over the processes, largest growth first.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tracemalloc
from pathlib import Path


def charged_to(trace: tracemalloc.Trace, innermost: bool) -> str:
    frames = list(reversed(trace.traceback))  # most recent call first
    if not innermost:
        for frame in frames:
            if "/work/" in frame.filename and "/.venv/" not in frame.filename:
                return f"{frame.filename.split('/work/', 1)[1]}:{frame.lineno}"
    return f"{frames[0].filename}:{frames[0].lineno}"


def sizes(path: Path, innermost: bool) -> collections.Counter[str]:
    totals: collections.Counter[str] = collections.Counter()
    for trace in tracemalloc.Snapshot.load(str(path)).traces:
        totals[charged_to(trace, innermost)] += trace.size
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("sessions", type=int)
    parser.add_argument("--since", type=int, default=1)
    parser.add_argument("--at", type=int, default=2)
    parser.add_argument("--innermost", action="store_true", help="charge the innermost frame")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    growth: collections.Counter[str] = collections.Counter()
    for before in sorted(args.folder.glob(f"*-{args.since}.snap")):
        after = before.with_name(before.name.replace(f"-{args.since}.", f"-{args.at}."))
        if not after.exists():
            continue
        growth.update(sizes(after, args.innermost))
        growth.subtract(sizes(before, args.innermost))
    total = sum(growth.values())
    print(f"{total / args.sessions / 1024:.1f} KiB per session in all", file=sys.stderr)
    for where, size in growth.most_common(args.top):
        print(f"{size / args.sessions:9.0f} B  {where}")


if __name__ == "__main__":
    main()
