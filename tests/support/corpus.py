"""Where the import tests find their files: the shared SillyTavern corpus and our own fixtures.

A newcomer's clone has no ``../shared``: the corpus tests skip there and say why. CI has the
corpus beside its clone, so under ``CI=true`` they always run (and fail if it went missing).
The project's own fixtures (``tests/fixtures/interop``, written by ``make.py`` there) cover
every format we import, so the import paths are tested on any clone.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES_DIR = ROOT / "tests" / "fixtures" / "interop"


def corpus_dir() -> Path:
    """The SillyTavern corpus: ``<repo>/../shared/corpus``, or under $FABULA_SHARED."""
    shared = os.environ.get("FABULA_SHARED")
    base = Path(shared) if shared else ROOT.parent / "shared"
    return base / "corpus" / "sillytavern"


requires_corpus = pytest.mark.skipif(
    not corpus_dir().is_dir() and not os.environ.get("CI"),
    reason="the SillyTavern corpus (../shared/corpus) is absent; CI runs these tests",
)


def fixture_path(name: str) -> Path:
    return FIXTURES_DIR / name


def fixture_bytes(name: str) -> bytes:
    """One of the project's own import fixtures."""
    return fixture_path(name).read_bytes()
