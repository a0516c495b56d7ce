"""The xdist scheduler of ``make test`` (tests/support/schedule.py), played against simulated
workers that behave as xdist's do: a worker runs a test only once it knows the next one (or has
been told to shut down), and the scheduler hears of each test as it ends."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadFileScheduling

from tests.support.schedule import CostScheduling, DurationRecorder, expected_seconds, waits


class Worker:
    """A simulated xdist worker: its queue of test indices, and what it ran when."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.gateway = SimpleNamespace(id=name)
        self.queue: list[int] = []
        self.shutting_down = False
        self.ran: list[tuple[float, float, int]] = []  # (start, end, index)

    def send_runtest_some(self, indices: list[int]) -> None:
        self.queue.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True

    def can_run(self) -> bool:
        return len(self.queue) >= 2 or (len(self.queue) == 1 and self.shutting_down)

    def __repr__(self) -> str:
        return self.name


def config(workers: int) -> Any:
    return SimpleNamespace(
        getvalue=lambda name: {"tx": [f"{workers}*popen"], "dist": "loadfile"}[name],
        option=SimpleNamespace(loadscopereorder=True),
    )


def suite(files: dict[str, list[float]]) -> tuple[list[str], dict[str, float]]:
    """Test ids in collection order and each one's seconds, from {file: [seconds of each test]}."""
    ids, seconds = [], {}
    for path, tests in files.items():
        for i, s in enumerate(tests):
            ids.append(f"{path}::test_{i}")
            seconds[ids[-1]] = s
    return ids, seconds


CORES = 2
# The share of a core a test keeps busy: a unit test all of one, a browser or integration test
# (its worker, servers and Chromium together) about a quarter, the rest of its time it waits.
DEMAND = {True: 0.25, False: 1.0}


def play(
    scheduler: Any, ids: list[str], seconds: dict[str, float], workers: int = 3
) -> list[Worker]:
    """Run the suite on simulated workers sharing ``CORES``; returns them with what each ran.

    ``seconds`` is each test's time alone on the machine: when the running tests ask for more
    than the cores, all of them slow down in proportion."""
    nodes = [Worker(f"gw{i}") for i in range(workers)]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, ids)
    scheduler.schedule()
    now = 0.0
    running: dict[Worker, tuple[float, int, float]] = {}  # node -> (start, index, work left)
    while True:
        for node in nodes:
            if node not in running and node.can_run():
                index = node.queue.pop(0)
                running[node] = (now, index, seconds[ids[index]])
        if not running:
            break
        demand = sum(DEMAND[waits(ids[index])] for _, index, _ in running.values())
        rate = min(1.0, CORES / demand)
        node = min(running, key=lambda n: running[n][2])
        step = running[node][2] / rate
        now += step
        running = {n: (s, i, left - step * rate) for n, (s, i, left) in running.items()}
        start, index, _ = running.pop(node)
        node.ran.append((start, now, index))
        scheduler.mark_test_complete(node, index)
    assert all(not n.queue for n in nodes)
    return nodes


def makespan(nodes: list[Worker]) -> float:
    return max(end for n in nodes for _, end, _ in n.ran)


def cost_scheduler(workers: int, recorded: dict[str, float], monkeypatch: Any) -> CostScheduling:
    monkeypatch.setattr("tests.support.schedule.read_durations", lambda: recorded)
    return CostScheduling(config(workers), QUIET)


# A run shaped like the suite: a third of its time in unit files of every size, two thirds in
# browser and integration files, among them a few long ones and three console crawls of one test.
FILES = {
    **{f"tests/engine/test_unit_{i}.py": [0.02 * (i % 20 + 1)] * 20 for i in range(100)},
    "tests/browser/test_evaluations.py": [60.0, 35.0],
    "tests/integration/test_faults.py": [20.0] * 5,
    "tests/browser/test_play.py": [4.0] * 10,
    **{f"tests/browser/test_page_{i}.py": [2.0] * 5 for i in range(10)},
    "tests/browser/test_console_clean_en.py": [45.0],
    "tests/browser/test_console_clean_es.py": [45.0],
    "tests/browser/test_console_clean_zh.py": [45.0],
}
QUIET = Producer("schedule", enabled=False)


def recorded_from(files: dict[str, list[float]]) -> dict[str, float]:
    return {path: sum(tests) for path, tests in files.items()}


def test_every_test_runs_once_on_one_worker_with_its_whole_file(monkeypatch: Any) -> None:
    ids, seconds = suite(FILES)
    nodes = play(cost_scheduler(3, recorded_from(FILES), monkeypatch), ids, seconds)
    ran = [ids[i] for n in nodes for _, _, i in n.ran]
    assert sorted(ran) == sorted(ids)
    for path in FILES:
        assert len({n.name for n in nodes for _, _, i in n.ran if ids[i].startswith(path)}) == 1


def test_the_long_files_are_spread_and_the_run_ends_near_its_ideal(monkeypatch: Any) -> None:
    ids, seconds = suite(FILES)
    ideal = sum(seconds.values()) / 3  # every worker busy to the end, cores never short
    ours = makespan(play(cost_scheduler(3, recorded_from(FILES), monkeypatch), ids, seconds))
    xdists = play(LoadFileScheduling(config(3), QUIET), ids, seconds)
    assert ours < ideal * 1.15, (ours, ideal)
    assert ours < makespan(xdists) * 0.85, (ours, makespan(xdists))
    # xdist's own order queues the three one-test crawls on one worker, one after another
    crawls = {n.name for n in xdists for _, _, i in n.ran if "console_clean" in ids[i]}
    assert len(crawls) == 1


def test_a_worker_busy_with_a_long_test_queues_a_short_file_behind_it(monkeypatch: Any) -> None:
    ids, seconds = suite(FILES)
    nodes = play(cost_scheduler(3, recorded_from(FILES), monkeypatch), ids, seconds)
    behind = [
        (ids[i], ids[j])
        for n in nodes
        for (_, _, i), (_, _, j) in zip(n.ran, n.ran[1:], strict=False)
        if seconds[ids[i]] >= 20 and ids[j].split("::")[0] != ids[i].split("::")[0]
    ]
    assert len(behind) == 5  # the evaluations, the faults and the three crawls
    assert all(not waits(after) for _, after in behind), behind


def test_one_worker_computes_while_the_others_wait(monkeypatch: Any) -> None:
    ids, seconds = suite(FILES)
    nodes = play(cost_scheduler(3, recorded_from(FILES), monkeypatch), ids, seconds)
    first = [ids[n.ran[0][2]] for n in nodes]
    assert sum(waits(path) for path in first) == 2
    assert sum(not waits(path) for path in first) == 1


def test_a_file_never_recorded_costs_its_tests_at_its_tiers_mean() -> None:
    units = {
        "tests/browser/a.py": {"x": False, "y": False},
        "tests/browser/new.py": {"x": False, "y": False, "z": False},
        "tests/engine/b.py": {"x": False},
        "tests/engine/new.py": {"x": False, "y": False},
    }
    got = expected_seconds(units, {"tests/browser/a.py": 10.0, "tests/engine/b.py": 0.5})
    assert got == {
        "tests/browser/a.py": 10.0,
        "tests/browser/new.py": 15.0,
        "tests/engine/b.py": 0.5,
        "tests/engine/new.py": 1.0,
    }


def test_with_no_record_at_all_the_waiting_tier_still_goes_first(monkeypatch: Any) -> None:
    ids, seconds = suite(FILES)
    nodes = play(cost_scheduler(3, {}, monkeypatch), ids, seconds)
    assert sorted(ids[i] for n in nodes for _, _, i in n.ran) == sorted(ids)
    assert sum(waits(ids[n.ran[0][2]]) for n in nodes) == 2


def test_stored_durations_merge_with_the_file_and_forget_deleted_files(tmp_path: Path) -> None:
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({"tests/conftest.py": 1.0, "tests/gone.py": 3.0}))
    recorder = DurationRecorder(path)
    for when, duration in (("setup", 0.25), ("call", 1.5), ("teardown", 0.25)):
        recorder.pytest_runtest_logreport(
            pytest.TestReport(
                "tests/config/test_schedule.py::t",
                ("", 0, ""),
                {},
                "passed",
                None,
                when,
                [],
                duration=duration,
            )
        )
    recorder.pytest_sessionfinish()
    assert json.loads(path.read_text()) == {
        "tests/conftest.py": 1.0,
        "tests/config/test_schedule.py": 2.0,
    }
