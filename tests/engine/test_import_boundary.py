"""The engine is a pure library: no module under engine/ imports the Django side."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = ("django", "channels", "celery", "studio", "play")


def imported_modules(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and (getattr(node.func, "id", None) or getattr(node.func, "attr", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(node.args[0].value)
    return found


def forbidden(module: str) -> bool:
    return module.split(".", 1)[0] in FORBIDDEN


ENGINE_FILES = sorted(ENGINE.rglob("*.py"))


def test_engine_has_modules_to_check() -> None:
    assert ENGINE / "world.py" in ENGINE_FILES
    assert len(ENGINE_FILES) > 5


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_imports_no_django_side(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = [m for m in imported_modules(tree) if forbidden(m)]
    assert bad == [], f"{path.relative_to(ENGINE.parent)} imports {bad}"


@pytest.mark.parametrize(
    "source",
    [
        "import django",
        "from django.db import models",
        "import channels.layers",
        "from celery import shared_task",
        "from studio.models import World",
        "import play.turns",
        "importlib.import_module('django.conf')",
    ],
)
def test_the_check_catches_each_forbidden_import(source: str) -> None:
    assert any(forbidden(m) for m in imported_modules(ast.parse(source)))


def test_the_check_leaves_lookalike_names_alone() -> None:
    source = "import playwright\nfrom engine.studio_tools import x\nfrom . import play"
    assert not any(forbidden(m) for m in imported_modules(ast.parse(source)))
