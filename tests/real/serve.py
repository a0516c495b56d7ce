"""Serve SmolLM2 with the llama.cpp server built by ``tests/real/build.py``, on loopback.

``--jinja`` makes llama.cpp render the model's own chat template and parse its tool calls (the
OpenAI ``tools`` field); without it tools are refused. ``--no-repack`` keeps the weights out of
the CPU's extra buffer types: the build is ``GGML_NATIVE``, and on a CPU that reports AMX in a
sandbox that does not grant it, the AMX matmul segfaults on the first graph. One slot and a
context that holds the master's fixed part, the scene and a few tool rounds. ``LlamaServer`` is
a context manager:

    with LlamaServer() as server:
        server.openai_url  # http://127.0.0.1:<port>/v1
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

import httpx

from tests.real.build import REAL, build_server, model

MODEL_NAME = "smollm2-135m-instruct"
CONTEXT = int(os.environ.get("FABULA_REAL_CONTEXT", "8192"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """One ``llama-server`` process on 127.0.0.1 for the length of a ``with`` block."""

    def __init__(self, port: int | None = None, threads: int = 2) -> None:
        self.port = port or _free_port()
        self.threads = threads
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path: Path = REAL / "llama-server.log"

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 300.0) -> LlamaServer:
        command = [
            str(build_server()), "-m", str(model()), "--host", "127.0.0.1",
            "--port", str(self.port), "--jinja", "-c", str(CONTEXT), "-np", "1",
            "-t", str(self.threads), "--alias", MODEL_NAME, "--no-webui", "--no-repack",
        ]  # fmt: skip
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama-server exited; see {self.log_path}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"llama-server not ready after {timeout:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


if __name__ == "__main__":  # serve until interrupted: `python -m tests.real.serve`
    with LlamaServer(port=int(os.environ.get("PORT", "8088"))) as server:
        print(f"serving {MODEL_NAME} at {server.openai_url}", flush=True)
        try:
            while server.process is not None and server.process.poll() is None:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
