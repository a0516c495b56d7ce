"""``python -m engine test --world W.json --tests T.json [--junit FILE]``: run a world's tests
(``engine.worldtests``) so a world can sit in a creator's own CI (issue 13 §3).

Prints one line per test (``PASS``, ``FAIL`` or ``ERROR``, its name and its step count), under a
failing test each step that failed with its input, what it showed and each broken assertion with
its diff, then a summary line. ``--junit FILE`` also writes JUnit XML: one ``testsuite`` named
after the world, one ``testcase`` per test, a ``failure`` (an assertion broke) or an ``error`` (a
step could not be played) carrying the same report. Exit status: 0 when every test passed, 1 when
one failed or erred, 2 for a usage error (a missing option, a file that cannot be read, invalid
JSON, an invalid world or suite), with the reason on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, TextIO
from xml.etree import ElementTree as ET

from engine.jsonguard import MAX_JSON_DEPTH, nesting_depth
from engine.world import WorldDefinition, WorldValidationError, load_world
from engine.worldtests import SuiteError, SuiteResult, TestResult, parse_suite, run_suite

SUMMARY = "run a world's tests (exit 1 on a failure; --junit writes JUnit XML)"
USAGE_ERROR = 2
MARKS = {"passed": "PASS ", "failed": "FAIL ", "error": "ERROR"}


class UsageError(Exception):
    """A problem with the command's input: exit 2."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The test command's options (``--world`` is added by ``engine.cli``)."""
    parser.add_argument("--tests", required=True, metavar="T.json", help="the tests of the world")
    parser.add_argument("--junit", metavar="FILE", help="also write the results as JUnit XML")


def cmd_test(args: argparse.Namespace) -> int:
    """Run the test command; see the module docstring for the contract."""
    try:
        world = _world(args.world)
        suite = _suite(args.tests)
    except UsageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return USAGE_ERROR
    result = asyncio.run(run_suite(world, suite, on_test=lambda t: _write(sys.stdout, t)))
    sys.stdout.write(summary_line(result) + "\n")
    if args.junit:
        try:
            Path(args.junit).write_text(junit_xml(result), encoding="utf-8")
        except OSError as exc:
            sys.stderr.write(f"error: {args.junit}: cannot write file: {exc.strerror}\n")
            return USAGE_ERROR
    return 0 if result.passed else 1


def _read(path: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"{path}: cannot read file: {reason}") from None
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise UsageError(f"{path}: invalid JSON: nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise UsageError(f"{path}: invalid JSON: {exc.msg} at {where}") from None


def _world(path: str) -> WorldDefinition:
    data = _read(path)
    try:
        return load_world(data if isinstance(data, dict) else json.dumps(data))
    except WorldValidationError as exc:
        lines = "\n".join(f"  {error}" for error in exc.errors)
        raise UsageError(f"{path}: invalid world ({len(exc.errors)} errors):\n{lines}") from None


def _suite(path: str) -> Any:
    try:
        return parse_suite(_read(path))
    except SuiteError as exc:
        lines = "\n".join(f"  {error}" for error in exc.errors)
        raise UsageError(f"{path}: invalid tests ({len(exc.errors)} errors):\n{lines}") from None


# --- reports -----------------------------------------------------------------------------------


def report_lines(test: TestResult) -> list[str]:
    """A test's report: its line, then each failed or erred step with what went wrong."""
    steps = len(test.steps)
    lines = [f"{MARKS.get(test.status, 'SKIP ')} {test.name} ({steps} step{'s' * (steps != 1)})"]
    for step in test.steps:
        if step.status not in ("failed", "error"):
            continue
        lines.append(f"  step {step.index + 1} · {step.label}")
        if step.error:
            lines.append(f"    error: {step.error}")
            continue
        lines.append(f"    shown: {json.dumps(step.text, ensure_ascii=False)}")
        for failure in step.failures:
            lines.append(f"    {failure.field}: {failure.message}")
            lines += [f"      {line}" for line in failure.diff.splitlines()]
    return lines


def _write(out: TextIO, test: TestResult) -> None:
    out.write("\n".join(report_lines(test)) + "\n")
    out.flush()


def summary_line(result: SuiteResult) -> str:
    counts = [(result.count(s), s) for s in ("passed", "failed", "error")]
    parts = ", ".join(f"{n} {label}" for n, label in counts if n or label == "passed")
    total = len(result.tests)
    return f"{total} test{'s' * (total != 1)}: {parts}"


def junit_xml(result: SuiteResult) -> str:
    """The results as JUnit XML (the schema CI servers read)."""
    suite = ET.Element(
        "testsuite",
        name=result.world or "world",
        tests=str(len(result.tests)),
        failures=str(result.count("failed")),
        errors=str(result.count("error")),
        skipped="0",
    )
    for test in result.tests:
        case = ET.SubElement(suite, "testcase", classname=result.world or "world", name=test.name)
        if test.status in ("failed", "error"):
            bad = next(s for s in test.steps if s.status == test.status)
            tag = "failure" if test.status == "failed" else "error"
            message = bad.error or "; ".join(f.field for f in bad.failures)
            element = ET.SubElement(case, tag, message=f"step {bad.index + 1}: {message}")
            element.text = "\n".join(report_lines(test))
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
