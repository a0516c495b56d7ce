"""The engine's hot modules compiled with mypyc, used only while they match their sources.

Reply parsing and state changes run once per turn over the whole reply, in pure Python loops;
mypyc compiles the same strictly typed modules to C, which about halves that time
(`bench/directives.py`). The sources stay the one definition: nothing here is a second
implementation, and the engine runs unchanged without a compiler.

``python -m engine.native_build`` (run by ``make install`` and ``make test``) builds `MODULES` into
``build/native`` with a stamp of their sources' hashes. `activate` (called by ``engine``'s
``__init__``) puts that build first on the package's path only when every stamped hash still
matches, so an edited source is never shadowed by a stale build, and ``FABULA_NATIVE=0`` keeps
the pure modules (``tests/engine/test_native.py`` runs the directive and state tests that way).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import sysconfig
from pathlib import Path

ENGINE = Path(__file__).resolve().parent
BUILD = ENGINE.parent / "build" / "native"
STAMP = BUILD / "stamp.json"

# Reply parsing (seed 000's six steps), the streamed reply's filter and the state operations they
# apply: the loops that run per directive and per token. The prompt's modules were tried too and
# gained nothing measurable, so they stay interpreted.
MODULES = (
    "directive_bodies",
    "directive_extractor",
    "directive_syntax",
    "directive_text",
    "state",
    "state_fast",
    "state_json",
    "state_names",
    "state_records",
    "state_values",
    "stream_filter",
    "text_tidy",
)


def _digest(module: str) -> str:
    return hashlib.sha256((ENGINE / f"{module}.py").read_bytes()).hexdigest()


def stamp() -> dict[str, object]:
    return {
        "suffix": sysconfig.get_config_var("EXT_SUFFIX"),
        "sources": {module: _digest(module) for module in MODULES},
    }


def is_current(build: Path = BUILD) -> bool:
    """Whether ``build`` holds every module of `MODULES`, built from today's sources."""
    try:
        found = json.loads((build / STAMP.name).read_text())
    except (OSError, ValueError):
        return False
    if found != stamp():
        return False
    suffix = str(found["suffix"])
    return all((build / "engine" / f"{module}{suffix}").is_file() for module in MODULES)


def activate(package_path: list[str]) -> bool:
    """Put the compiled modules ahead of the sources in ``engine``'s ``__path__`` when current."""
    if os.environ.get("FABULA_NATIVE", "1") == "0" or not is_current():
        return False
    package_path.insert(0, str(BUILD / "engine"))
    if str(BUILD) not in sys.path:
        sys.path.append(str(BUILD))  # mypyc's shared runtime library is a top-level module
    return True


def active() -> bool:
    """Whether this process runs the compiled modules (the benches print it beside figures)."""
    from engine import state

    return Path(state.__file__ or "").suffix != ".py"
