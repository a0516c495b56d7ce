"""docs/SECURITY.md names the test behind each line: every test it names must exist, or a line
would promise what nothing checks any more."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = re.compile(r"`((?:[\w]+/)*test_\w+\.py)(?:::(\w+))?`")


def functions_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    return {node.name for node in ast.walk(tree) if isinstance(node, kinds)}


def test_every_test_the_security_page_names_exists():
    text = (ROOT / "docs" / "SECURITY.md").read_text(encoding="utf-8")
    named = REFERENCE.findall(text)
    assert len(named) > 50
    missing = []
    for module, name in named:
        path = ROOT / "tests" / module
        if not path.is_file():
            missing.append(module)
        elif name and name not in functions_of(path):
            missing.append(f"{module}::{name}")
    assert missing == []
