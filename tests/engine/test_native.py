"""The compiled engine modules (`engine.native`): used when current, never when stale, and the
pure sources they come from still pass the directive and state tests on their own."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import native

ROOT = Path(__file__).resolve().parents[2]
PURE_SUITES = [
    "tests/engine/test_directives.py",
    "tests/engine/test_directive_fastpath.py",
    "tests/engine/test_seed_conformance.py",
    "tests/engine/test_state.py",
    "tests/engine/test_stream_filter.py",
]


def pure_env() -> dict[str, str]:
    return {**os.environ, "FABULA_NATIVE": "0"}


def test_a_current_build_is_what_the_engine_runs() -> None:
    if os.environ.get("FABULA_NATIVE") == "0":
        pytest.skip("FABULA_NATIVE=0 keeps the pure modules")
    if not native.is_current():
        if os.environ.get("CI"):
            pytest.fail("CI compiles the engine (make native); build/native is missing or stale")
        pytest.skip("the engine is not compiled here (make native needs a C compiler)")
    assert native.active()
    for module in native.MODULES:
        loaded = importlib.import_module(f"engine.{module}")
        assert Path(loaded.__file__ or "").parent == native.BUILD / "engine", module


def fake_build(tmp_path: Path) -> Path:
    build = tmp_path / "native"
    stamp = native.stamp()
    (build / "engine").mkdir(parents=True)
    for module in native.MODULES:
        (build / "engine" / f"{module}{stamp['suffix']}").write_bytes(b"")
    (build / "stamp.json").write_text(json.dumps(stamp))
    return build


def test_a_build_counts_only_while_every_source_matches_its_stamp(tmp_path: Path) -> None:
    build = fake_build(tmp_path)
    assert native.is_current(build)

    stamp = json.loads((build / "stamp.json").read_text())
    stamp["sources"]["directive_extractor"] = "0" * 64  # the source was edited since
    (build / "stamp.json").write_text(json.dumps(stamp))
    assert not native.is_current(build)


def test_a_build_missing_a_module_or_its_stamp_is_not_used(tmp_path: Path) -> None:
    build = fake_build(tmp_path)
    next((build / "engine").iterdir()).unlink()
    assert not native.is_current(build)

    shutil.rmtree(build)
    assert not native.is_current(build)


def test_fabula_native_0_keeps_the_pure_modules() -> None:
    probe = "from engine import native; print(native.active())"
    shown = subprocess.run(
        [sys.executable, "-c", probe], env=pure_env(), cwd=ROOT, capture_output=True, text=True
    )
    assert shown.stdout.strip() == "False", shown.stderr


def test_the_pure_modules_pass_the_directive_and_state_tests() -> None:
    """The compiled modules run the whole suite; their sources must stay correct on their own,
    since a machine without a C compiler runs them."""
    if not native.active():
        pytest.skip("this run already uses the pure modules")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *PURE_SUITES],
        env=pure_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
