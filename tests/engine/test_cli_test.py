"""``python -m engine test``, run as a creator's CI runs it (a subprocess): exit 0 when every
test passes, 1 on a failure, 2 on a usage error; JUnit XML with ``--junit``."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from tests.engine.test_cli import ROOT, run, write

WORLD: dict[str, Any] = {
    "name": "Salt road",
    "variables": [{"id": "gold", "type": "number", "defaultValue": 0}],
    "entries": [{"id": "hello", "role": "greeting", "content": "Dawn over the salt."}],
}
PASSING = {"name": "Dawn", "steps": [{"start": True, "expect": {"text": "Dawn over the salt."}}]}
FAILING = {
    "name": "Pay day",
    "steps": [
        {"start": True},
        {
            "say": "I sell the salt.",
            "reply": "You earn five. [gold: +5]",
            "expect": {"state": {"gold": 6}, "text": "You earn six."},
        },
    ],
}


def files(tmp_path: Path, *tests: dict[str, Any]) -> tuple[str, str]:
    world = write(tmp_path / "world.json", WORLD)
    return world, write(tmp_path / "tests.json", {"tests": list(tests)})


def test_passing_tests_exit_0_with_one_line_each(tmp_path: Path) -> None:
    world, tests = files(tmp_path, PASSING)

    done = run("test", "--world", world, "--tests", tests)

    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "PASS  Dawn (1 step)\n1 test: 1 passed\n"


def test_a_failing_test_exits_1_with_each_broken_assertion_and_its_diff(tmp_path: Path) -> None:
    world, tests = files(tmp_path, PASSING, FAILING)

    done = run("test", "--world", world, "--tests", tests)

    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "PASS  Dawn (1 step)",
        "FAIL  Pay day (2 steps)",
        '  step 2 · say "I sell the salt."',
        '    shown: "You earn five."',
        "    text: the text shown differs",
        "      --- expected",
        "      +++ shown",
        "      @@ -1 +1 @@",
        "      -You earn six.",
        "      +You earn five.",
        "    state.gold: expected 6, got 5",
        "2 tests: 1 passed, 1 failed",
    ]


def test_junit_xml_names_the_world_and_each_test(tmp_path: Path) -> None:
    world, tests = files(tmp_path, PASSING, FAILING, {"name": "Mute", "steps": [{"say": "Hi"}]})
    report = tmp_path / "junit.xml"

    done = run("test", "--world", world, "--tests", tests, "--junit", str(report))

    assert done.returncode == 1
    suite = ET.parse(report).getroot()
    assert (suite.tag, suite.get("name"), suite.get("tests")) == ("testsuite", "Salt road", "3")
    assert (suite.get("failures"), suite.get("errors")) == ("1", "1")
    cases = {case.get("name"): case for case in suite}
    assert list(cases["Dawn"]) == []
    failure = cases["Pay day"].find("failure")
    assert failure is not None and failure.get("message") == "step 2: text; state.gold"
    assert "state.gold: expected 6, got 5" in (failure.text or "")
    error = cases["Mute"].find("error")
    assert error is not None and (error.get("message") or "").startswith(
        "step 1: the narrator was asked for reply 1"
    )


def test_invalid_tests_exit_2_naming_each_problem(tmp_path: Path) -> None:
    bad = [{"name": "Bad", "steps": [{"shout": "hey"}]}, {"name": "", "steps": [{"roll": True}]}]
    world, tests = files(tmp_path, *bad)

    done = run("test", "--world", world, "--tests", tests)

    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"error: {tests}: invalid tests (2 errors):\n"
        "  tests[0].steps[0].shout: Extra inputs are not permitted\n"
        "  tests[1].name: String should have at least 1 character\n"
    )


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    world, tests = files(tmp_path, PASSING)
    missing = str(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")

    assert run("test", "--world", world).returncode == 2  # --tests is required
    assert run("test", "--world", missing, "--tests", tests).returncode == 2
    done = run("test", "--world", world, "--tests", str(broken))
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {broken}: invalid JSON: ")
    assert run("lint").returncode == 1  # the other commands keep their exit status


def test_the_demo_worlds_pass_their_shipped_tests() -> None:
    fixtures = ROOT / "studio" / "fixtures"
    for name in ("demo_world", "gm_demo_world"):
        world, tests = fixtures / f"{name}.json", fixtures / f"{name}.tests.json"
        done = run("test", "--world", str(world), "--tests", str(tests))
        assert done.returncode == 0, done.stdout
