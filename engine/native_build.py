"""``python -m engine.native_build``: compile `engine.native.MODULES` with mypyc (see there).

Run by ``make native`` (part of ``make install``, ``make test`` and ``make run``), with
``--if-stale`` so an unchanged build is kept. It needs a C compiler and the Python headers; where
they are missing the make target says so and the engine stays pure Python.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

from engine.native import BUILD, ENGINE, MODULES, STAMP, is_current, stamp


def build() -> None:
    """Compile `MODULES` into a fresh directory, stamp it, then put it in place of
    ``build/native``; a failed build leaves the previous one, which is used only if current."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    root = ENGINE.parent
    fresh, old = BUILD.with_name("native-new"), BUILD.with_name("native-old")
    for leftover in (fresh, old):
        shutil.rmtree(leftover, ignore_errors=True)
    os.chdir(root)  # mypyc names modules by their path from here
    extensions = mypycify(
        [f"engine/{module}.py" for module in MODULES],
        opt_level="3",
        target_dir="build/native-c",
        group_name="fabula_engine",
    )
    distribution = Distribution({"name": "fabula-native", "ext_modules": extensions})
    command = distribution.get_command_obj("build_ext")
    command.build_lib = str(fresh)
    command.build_temp = str(root / "build" / "native-obj")
    distribution.run_command("build_ext")
    (fresh / STAMP.name).write_text(json.dumps(stamp(), indent=1))
    # Swapped in by renames: a running server keeps the libraries it mapped, and a process
    # starting meanwhile finds either the whole old build or the whole new one (or none).
    if BUILD.exists():
        BUILD.rename(old)
    fresh.rename(BUILD)
    shutil.rmtree(old, ignore_errors=True)


if __name__ == "__main__":
    if "--if-stale" in sys.argv[1:] and is_current():
        print(f"engine.native: {BUILD} matches the sources")
    else:
        build()
        print(f"engine.native: {len(MODULES)} modules compiled into {BUILD}")
