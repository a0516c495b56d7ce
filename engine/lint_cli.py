"""``python -m engine lint --world W.json``: the world linter's findings, one JSON line each.

Each line is ``{"severity", "code", "path", "message"}``, errors first, in document order. The
exit status is 1 when there is at least one error, 0 otherwise (warnings alone pass). A file that
cannot be read or is not JSON prints nothing on stdout and exits 1 with ``error: <file>: …`` on
stderr, as every command of ``engine.cli`` does; JSON that is not a world is linted, and what
stops it loading comes back as error findings.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine.jsonguard import MAX_JSON_DEPTH, nesting_depth
from engine.lint import has_errors, lint_source, load_finding

SUMMARY = "lint a world: findings as JSON lines, exit 1 on errors"


def cmd_lint(args: argparse.Namespace) -> int:
    """Run the lint command; see the module docstring for the contract."""
    path: str = args.world
    try:
        data = _read(path)
    except ValueError as exc:
        sys.stderr.write(f"error: {path}: {exc}\n")
        return 1
    findings = lint_source(data) if isinstance(data, dict) else []
    if not isinstance(data, dict):
        findings = [load_finding(f"$: must be a JSON object, got {_kind(data)}")]
    for finding in findings:
        sys.stdout.write(json.dumps(finding.to_dict(), ensure_ascii=False) + "\n")
    return 1 if has_errors(findings) else 0


def _read(path: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ValueError(f"cannot read file: {reason}") from None
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise ValueError(f"invalid JSON: nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


def _kind(value: Any) -> str:
    names = {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)
