"""Which test file a pytest-xdist worker takes next (``--dist loadfile``), by what each costs.

xdist's own loadfile order is the file with the most tests first, and it binds a file to a worker
as soon as that worker has two tests left (a worker must know its next test before it runs one).
On this suite both cost minutes, measured with ``FABULA_TIMELINE`` (tests/conftest.py):

- two thirds of the workers' time is the browser and integration tiers, which mostly wait on
  servers, sockets and timers; when every worker waits on one, the cores idle (30-55 % in the
  second half of a run), while a unit file keeps a core busy the whole time;
- a file of one or two long tests binds the next file behind it: the three console crawls (one
  test of ~45 s each) queued on one worker and ran one after another for the last 70 s of the
  run while the other two workers had finished.

So each file's expected seconds are read from tests/durations.json (``make test-durations``
writes it: ``pytest --store-durations``); a file it lacks is estimated from its number of tests
at the mean of its tier. A worker takes the longest file left of the waiting tier while fewer
than all the other workers wait on one, and the longest computing file otherwise (or whichever
tier is left), so one worker keeps computing while the others wait. A worker that still has
more than ``FILL_SECONDS`` of its own queued takes the shortest computing file instead: it runs
only after the long one, and the long files stay for whichever worker frees first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadFileScheduling

ROOT = Path(__file__).resolve().parents[2]
DURATIONS = ROOT / "tests" / "durations.json"
WAITING_TIERS = ("tests/browser/", "tests/integration/")
FILL_SECONDS = 5.0
# Per test, for a tier none of whose files is recorded (a clone whose durations.json is gone).
DEFAULT_SECONDS = {True: 3.0, False: 0.05}

Unit = Mapping[str, bool]  # a file's test ids, each True once it has run


def waits(scope: str) -> bool:
    """Whether a file belongs to a tier that mostly waits on servers and timers."""
    return scope.startswith(WAITING_TIERS)


def expected_seconds(units: Mapping[str, Unit], recorded: Mapping[str, float]) -> dict[str, float]:
    """Each file's recorded seconds, or its number of tests at its tier's recorded mean."""
    per_test = {}
    for tier in (True, False):
        known = [scope for scope in units if waits(scope) == tier and scope in recorded]
        tests = sum(len(units[scope]) for scope in known)
        per_test[tier] = sum(recorded[s] for s in known) / tests if tests else DEFAULT_SECONDS[tier]
    return {
        scope: recorded.get(scope, len(unit) * per_test[waits(scope)])
        for scope, unit in units.items()
    }


def read_durations(path: Path = DURATIONS) -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}


class CostScheduling(LoadFileScheduling):
    """loadfile with the choice of the next file made as the module docstring says."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self.recorded = read_durations()
        self.expected: dict[str, float] = {}

    def _assign_work_unit(self, node: Any) -> None:
        if not self.expected:  # the first call: the queue holds every file
            self.expected = expected_seconds(self.workqueue, self.recorded)
        self.workqueue.move_to_end(self.choose(node), last=False)
        super()._assign_work_unit(node)  # takes the queue's first file

    def choose(self, node: Any) -> str:
        left = list(self.workqueue)
        computing = [scope for scope in left if not waits(scope)]
        if self.queued_seconds(node) > FILL_SECONDS:
            return min(computing or left, key=self.expected.__getitem__)
        waiting = [scope for scope in left if waits(scope)]
        others_waiting = sum(1 for n in self.assigned_work if n is not node and self.waits_now(n))
        prefer = waiting if others_waiting < len(self.nodes) - 1 else computing
        return max(prefer or left, key=self.expected.__getitem__)

    def queued_seconds(self, node: Any) -> float:
        """The expected seconds of the tests given to ``node`` that it has not finished."""
        return sum(
            self.expected[scope] * list(unit.values()).count(False) / len(unit)
            for scope, unit in self.assigned_work.get(node, {}).items()
        )

    def waits_now(self, node: Any) -> bool:
        return any(
            waits(scope) and not all(unit.values())
            for scope, unit in self.assigned_work.get(node, {}).items()
        )


class DurationRecorder:
    """``--store-durations``: each file's seconds (setup, call and teardown of its tests, as the
    workers report them) merged into tests/durations.json at the end of the run."""

    def __init__(self, path: Path = DURATIONS) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        scope = report.nodeid.split("::", 1)[0]
        self.seconds[scope] = self.seconds.get(scope, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        merged = {**read_durations(self.path), **self.seconds}
        kept = {k: round(v, 2) for k, v in sorted(merged.items()) if (ROOT / k).exists()}
        self.path.write_text(json.dumps(kept, indent=1) + "\n")
