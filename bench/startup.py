"""How long a person waits before Fabula answers: `manage.py check`, config.urls, `make run`.

Why this exists: every `manage.py` step (check, migrate, load_demo, runserver) imports the URL
tree, and with it whatever config.urls pulls in at import time. Issue 36 set the targets on a
2-core machine: `manage.py check` under 1.5 s warm, a second `make run` serving its first page
under 8 s. This prints the figures to compare against them:

- ``manage.py check``: the median wall time of ``--runs`` runs after one warm-up run (the warm-up
  fills the OS file cache and __pycache__, so the figure is the one a person pays again and again);
- ``import config.urls``: the median time to import the URL tree after ``django.setup()``, in a
  fresh interpreter each run, and the three heaviest packages it imports (``-X importtime``);
- with ``--run``: the time from ``make run`` to the first page it serves (``/``), on ``--port``,
  against the checkout's own SQLite database (as a person's second ``make run`` would).

    .venv/bin/python bench/startup.py [--runs 5] [--run --port 8765]
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable
# The development environment `make run` uses (a SECRET_KEY generated once into .secrets/).
# Bytecode cached as `make` keeps it (Makefile: a machine's PYTHONDONTWRITEBYTECODE is dropped).
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "DEBUG": "1",
    "DJANGO_SETTINGS_MODULE": "config.settings",
}
URLS_IMPORT = (
    "import time, django; django.setup(); t = time.perf_counter(); import config.urls; "
    "print(time.perf_counter() - t)"
)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check_seconds(runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds; on a machine others keep busy, the CPU time is the one to
    compare (the wall time then includes the waits for a core)."""

    def once() -> tuple[float, float]:
        start, cpu = time.perf_counter(), children_cpu()
        subprocess.run(
            [PYTHON, "manage.py", "check"], cwd=ROOT, env=ENV, check=True, capture_output=True
        )
        return time.perf_counter() - start, children_cpu() - cpu

    once()  # warm-up
    walls, cpus = zip(*(once() for _ in range(runs)), strict=True)
    return statistics.median(walls), statistics.median(cpus)


def urls_import_seconds(runs: int) -> float:
    def once() -> float:
        out = subprocess.run(
            [PYTHON, "-c", URLS_IMPORT], cwd=ROOT, env=ENV, check=True, capture_output=True
        )
        return float(out.stdout.decode().split()[-1])

    once()
    return statistics.median(once() for _ in range(runs))


def heaviest_top_level_packages(count: int = 3) -> list[tuple[str, float]]:
    """The packages (first dotted part) whose imports cost config.urls the most, in seconds."""
    out = subprocess.run(
        [PYTHON, "-X", "importtime", "-c", URLS_IMPORT],
        cwd=ROOT,
        env=ENV,
        check=True,
        capture_output=True,
    )
    totals: dict[str, float] = {}
    for line in out.stderr.decode().splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _cumulative, name = line[len("import time:") :].split("|")
        if own.strip().isdigit():
            package = name.strip().split(".")[0]
            totals[package] = totals.get(package, 0.0) + int(own) / 1e6
    return sorted(totals.items(), key=lambda item: item[1], reverse=True)[:count]


def make_run_seconds(port: int, timeout: float) -> float:
    """From `make run` to the first 200 on / (the process group is stopped afterwards)."""
    url = f"http://127.0.0.1:{port}/"
    start = time.perf_counter()
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "run", f"PORT={port}"],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while time.perf_counter() - start < timeout:
            if proc.poll() is not None:
                raise SystemExit(f"make run exited with {proc.returncode} before serving")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return time.perf_counter() - start
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        raise SystemExit(f"make run served nothing on {url} within {timeout:.0f} s")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs after one warm-up")
    parser.add_argument("--run", action="store_true", help="also time `make run` to first page")
    parser.add_argument("--port", type=int, default=8765, help="the port `make run` serves on")
    parser.add_argument("--timeout", type=float, default=300, help="seconds `make run` may take")
    args = parser.parse_args()

    check, cpu = check_seconds(args.runs)
    print(f"manage.py check (warm, median of {args.runs}): {check:6.2f} s   target < 1.5 s")
    print(
        f"  its CPU time (user + system, median):     {cpu:6.2f} s   load {os.getloadavg()[0]:.1f}"
    )
    urls = urls_import_seconds(args.runs)
    print(f"import config.urls (after setup, median):  {urls:6.2f} s")
    heaviest = ", ".join(
        f"{name} {seconds:.2f} s" for name, seconds in heaviest_top_level_packages()
    )
    print(f"  heaviest packages (setup + urls, own time): {heaviest}")
    if args.run:
        first_page = make_run_seconds(args.port, args.timeout)
        print(f"make run -> first page on :{args.port}:     {first_page:6.2f} s   target < 8 s")


if __name__ == "__main__":
    main()
