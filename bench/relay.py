"""Relay benchmark: N concurrent play sessions streaming through daphne, token by token.

For each level (50, 200, 500 sessions by default) it starts a fresh daphne (the Redis channel
layer and Redis locks when REDIS_URL is set; otherwise the embedded in-memory layer) and a
loopback OpenAI-compatible model server in its own process that streams TOKENS tokens per reply
at a fixed RATE. Each token carries the CLOCK_MONOTONIC time at which the model server wrote
it, so the client measures the latency the whole path adds (SDK, engine stream filter, relay,
daphne, websocket) per token. It prints per-token added latency p50/p99, turn completion p99,
frames lost (seq gaps, or text that differs from the saved message; must be 0) and daphne RSS
growth per session. Loopback only; every level is bounded in time.

    .venv/bin/python bench/relay.py                      # 50, 200, 500 sessions
    .venv/bin/python bench/relay.py --sessions 500 --rate 10 --tokens 200
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import multiprocessing
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
VENV_BIN = Path(sys.executable).parent
PROGRESS: dict[str, str] = {}  # url -> the last thing a socket saw, to explain a stall
STAMP = re.compile(r"\d{10}\.\d{6}")


# --- the model server (own process) ----------------------------------------------------------


def serve_model(port: int, tokens: int, rate: float) -> None:
    # No collector in the model server: it inherits the bench's objects when forked, and a full
    # pass over them (154 ms at 500 sessions) held every stream's tokens back at once, then
    # sent them in one burst, which no real provider does to 500 independent streams.
    gc.disable()
    asyncio.run(_serve(port, tokens, rate))


async def _serve(port: int, tokens: int, rate: float) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                length = 0
                for line in lines[1:]:
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                body = json.loads(await reader.readexactly(length)) if length else {}
                await _stream(writer, body, tokens, rate)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
    async with server:
        await server.serve_forever()


def _chunk(data: dict[str, Any]) -> bytes:
    payload = f"data: {json.dumps(data)}\n\n".encode()
    return f"{len(payload):x}\r\n".encode() + payload + b"\r\n"


async def _stream(
    writer: asyncio.StreamWriter, body: dict[str, Any], tokens: int, rate: float
) -> None:
    """One reply: each token written by a timer callback at its time, from prebuilt bytes.

    The model server shares the cores with what it measures; a task step and a ``json.dumps``
    per token made it take 27 % of a core at 500 sessions, time the daphnes did not get.
    """
    writer.write(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        b"transfer-encoding: chunked\r\nconnection: keep-alive\r\n\r\n"
    )
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    _Reply(writer.transport, tokens, rate, done).start(loop)
    await done
    await writer.drain()


_BASE = {"id": "bench", "object": "chat.completion.chunk", "created": 0, "model": "bench"}
_MARK = "0" * 17  # where a token's stamp goes: fixed width, so every token chunk is as long
_HEAD, _TAIL = _chunk(
    {**_BASE, "choices": [{"index": 0, "delta": {"content": _MARK + " "}}]}
).split(_MARK.encode())


class _Reply:
    def __init__(
        self, transport: asyncio.BaseTransport, tokens: int, rate: float, done: asyncio.Future[None]
    ) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        self.transport, self.tokens, self.rate, self.done = transport, tokens, rate, done
        self.sent = 0
        self.start_time = 0.0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.start_time = loop.time()
        self.tick()

    def tick(self) -> None:
        if self.transport.is_closing():
            self.done.set_result(None)
            return
        stamp = f"{time.monotonic():017.6f}".encode()
        self.transport.write(_HEAD + stamp + _TAIL)
        self.sent += 1
        if self.sent < self.tokens:
            self.loop.call_at(self.start_time + self.sent / self.rate, self.tick)
            return
        finish = {"index": 0, "delta": {}, "finish_reason": "stop"}
        self.transport.write(_chunk({**_BASE, "choices": [finish]}))
        tokens = self.tokens
        usage = {"prompt_tokens": 100, "completion_tokens": tokens, "total_tokens": 100 + tokens}
        self.transport.write(_chunk({**_BASE, "choices": [], "usage": usage}))
        payload = b"data: [DONE]\n\n"
        self.transport.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n0\r\n\r\n")
        self.done.set_result(None)


# --- setup -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_port(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError("daphne exited at start")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    for secret in ("SECRET_KEY", "FABULA_KEY_ENCRYPTION_SECRET"):  # DEBUG off; daphne inherits
        os.environ.setdefault(secret, secrets.token_urlsafe(50))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def make_sessions(count: int) -> tuple[str, list[str]]:
    """A player with ``count`` live sessions of a small world; returns its cookie and the ids."""
    from django.contrib.auth.models import User
    from django.test import Client

    from play.sessions import start_session
    from studio.publishing import publish_world
    from tests.factories import make_world

    user = User.objects.filter(username="bench").first() or User.objects.create_user("bench")
    version = publish_world(make_world(user))
    ids = [str(start_session(user, version, mode="live").pk) for _ in range(count)]
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}", ids


def family(pid: int) -> list[int]:
    """``pid`` and its children: the launcher's daphnes are measured with it."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    found = [int(c) for c in children.read_text().split()] if children.exists() else []
    return [pid, *found]


async def snapshot_allocations(pid: int) -> None:
    """With ``BENCH_TRACEMALLOC``, each daphne dumps a snapshot (bench/tracemalloc_hook)."""
    if not os.environ.get("BENCH_TRACEMALLOC"):
        return
    folder = Path(os.environ["BENCH_TRACEMALLOC"])
    before = len(list(folder.glob("*.snap")))
    members = family(pid)
    for member in members:
        with contextlib.suppress(OSError):
            os.kill(member, signal.SIGUSR2)
    # The dumps take seconds with every allocation traced and stop each process meanwhile:
    # wait them out, so no socket's handshake times out on a process that is dumping.
    deadline = time.monotonic() + 120
    while len(list(folder.glob("*.snap"))) < before + len(members) and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    await asyncio.sleep(2)


def cpu_seconds(pid: int) -> float:
    total = 0.0
    for member in family(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def rss_kib(pid: int) -> int:
    total = 0
    for member in family(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


# --- the clients -----------------------------------------------------------------------------


@dataclass
class Outcome:
    latencies: list[float] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)  # when each token arrived, for the trace
    turn_seconds: float | None = None
    first_token_seconds: float | None = None  # from the player's send to the first delta
    lost: int = 0
    error: str = ""


async def play_one(
    url: str, cookie: str, origin: str, tokens: int, go: asyncio.Event, delay: float = 0.0
) -> Outcome:
    from bench.relay_client import connect

    outcome = Outcome()
    PROGRESS[url] = "connecting"
    ws = await connect(url, {"Cookie": cookie, "Origin": origin})
    try:
        PROGRESS[url] = "connected"
        batch = await ws.recv_batch()
        history = json.loads(batch.pop(0))
        PROGRESS[url] = "history"
        if history.get("type") != "history":
            outcome.error = f"no history: {history}"
            return outcome
        await go.wait()
        await asyncio.sleep(delay)  # players do not all press Enter in the same millisecond
        sent = time.monotonic()
        await ws.send(json.dumps({"type": "send", "text": "Go on"}))
        turn = _Turn(tokens, outcome, sent)
        while not turn.over:
            for text in await ws.recv_batch():
                PROGRESS[url] = turn.take(json.loads(text), time.monotonic())
                if turn.over:
                    break
        return outcome
    finally:
        await ws.close()


class _Turn:
    """One client's turn, frame by frame: the seq check, the stamps' latencies, the end."""

    def __init__(self, tokens: int, outcome: Outcome, sent: float) -> None:
        self.tokens, self.outcome, self.sent = tokens, outcome, sent
        self.reply_id: int | None = None
        self.last_seq, self.text, self.scanned = 0, "", 0
        self.over = False

    def take(self, frame: dict[str, Any], now: float) -> str:
        outcome, kind = self.outcome, frame["type"]
        if kind == "message_start":
            self.reply_id, self.last_seq = frame["message"]["id"], 0
        elif kind == "delta" and frame["message_id"] == self.reply_id:
            if outcome.first_token_seconds is None:
                outcome.first_token_seconds = now - self.sent
            if frame["first_seq"] != self.last_seq + 1:
                outcome.lost += frame["first_seq"] - self.last_seq - 1
            self.last_seq = frame["seq"]
            self.text += frame["text"]
            # A token is its fixed-width stamp; the stream filter may hold back a trailing
            # space, so a stamp counts as arrived as soon as its digits are all here. Only
            # the text after the last whole stamp is scanned: the clients share the cores.
            for found in STAMP.finditer(self.text, self.scanned):
                outcome.latencies.append(now - float(found.group()))
                outcome.arrivals.append(now)
                self.scanned = found.end()
        elif kind == "message_done" and frame["message"]["role"] == "assistant":
            outcome.turn_seconds = now - self.sent
            content = frame["message"]["content"]
            if content != self.text.strip() or len(content.split()) != self.tokens:
                outcome.lost += max(1, self.tokens - len(self.text.split()))
            self.over = True
        elif kind in ("message_failed", "busy", "error"):
            outcome.error = json.dumps(frame)[:200]
            self.over = True
        return f"{kind} seq={frame.get('seq', '')}"


def _seconds(line: str) -> float:
    return float(line.split()[0])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_level(
    cookie: str,
    ids: list[str],
    tokens: int,
    rate: float,
    ramp: float,
    database_url: str,
    redis_url: str,
    processes: int = 1,
) -> dict[str, Any]:
    sessions = len(ids)
    model_port, port = free_port(), free_port()
    model = multiprocessing.Process(target=serve_model, args=(model_port, tokens, rate))
    model.start()
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        FABULA_PROVIDER="openai",
        FABULA_BASE_URL=f"http://127.0.0.1:{model_port}/v1",
        FABULA_MODEL="bench",
        FABULA_API_KEY="bench",
        FABULA_DAILY_ACTION_QUOTA="0",
        FABULA_NEW_ACCOUNT_DAILY_QUOTA="0",  # the bench's user was just made
        DEBUG="false",
    )
    if processes > 1:  # make serve-prod's launcher: that many daphnes on one port
        serve = ["-m", "config.serve", "--processes", str(processes), "--port", str(port)]
        command = [sys.executable, *serve]
        env.setdefault("FABULA_DB_POOL", "8")
    else:
        command = [str(VENV_BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port)]
        command.append("config.asgi:application")
    if os.environ.get("BENCH_PROFILE"):  # cProfile the daphne process into this file
        command = [sys.executable, "-m", "cProfile", "-o", os.environ["BENCH_PROFILE"], *command]
    if os.environ.get("BENCH_PYSPY"):  # py-spy (pip install py-spy) samples daphne into a file
        spy = [str(VENV_BIN / "py-spy"), "record", "-r", "200", "-f", "raw", "--gil"]
        command = [*spy, "--subprocesses", "-o", os.environ["BENCH_PYSPY"], "--", *command]
    tracing = bool(os.environ.get("BENCH_TRACEMALLOC"))
    if tracing:  # snapshots at each measurement (tracemalloc_diff.py)
        hook = str(ROOT / "bench" / "tracemalloc_hook")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [hook, env.get("PYTHONPATH")]))
        env["PYTHONTRACEMALLOC"] = os.environ.get("BENCH_TRACEMALLOC_FRAMES", "12")
    log_path = Path(tempfile.gettempdir()) / f"bench-daphne-{port}.log"
    daphne_log = log_path.open("w")
    daphne = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=daphne_log, stderr=subprocess.STDOUT
    )
    try:
        wait_port(model_port)
        wait_port(port, daphne)
        origin = f"http://127.0.0.1:{port}"
        # Warm-up turns, so imports and client pools are in the baseline. With several processes
        # the kernel hands each connection to any of them: 4 at once per process, so that each
        # has had its first turn (one turn left the other process's first-turn set-up, ~10 MB,
        # counted as 20 KiB per session at 500).
        # A child that was still booting takes none of a round, so rounds go on (at most five)
        # until the children's RSS is within 15 % of each other: the same work done in each.
        warm = asyncio.Event()
        warm.set()
        warm_ids = ids[: 4 * processes] if processes > 1 else ids[:1]
        for _ in range(5):
            await asyncio.gather(
                *(
                    play_one(f"ws://127.0.0.1:{port}/ws/play/{sid}/", cookie, origin, tokens, warm)
                    for sid in warm_ids
                )
            )
            children = [rss_kib(pid) for pid in family(daphne.pid)[1:]] or [0]
            if min(children) >= 0.85 * max(children):
                break
        else:
            print(f"warning: the children's RSS still differ after warming up: {children} KiB")
        baseline = rss_kib(daphne.pid)
        await snapshot_allocations(daphne.pid)
        go = asyncio.Event()
        urls = [f"ws://127.0.0.1:{port}/ws/play/{sid}/" for sid in ids]
        tasks = [
            asyncio.ensure_future(play_one(u, cookie, origin, tokens, go, ramp * i / len(urls)))
            for i, u in enumerate(urls)
        ]
        await asyncio.sleep(min(10.0, 1 + sessions / 100))  # let every socket connect
        if tracing:  # tracing slows the handshakes: wait them out
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and any(PROGRESS.get(u) != "history" for u in urls):
                await asyncio.sleep(0.5)
        peak = idle = rss_kib(daphne.pid)
        await snapshot_allocations(daphne.pid)
        # The clients' own collector stays off while they measure: a full pass in this process
        # took 128-140 ms at 500 sessions, and every token in flight counted it as latency.
        gc.collect()
        gc.disable()
        started = time.monotonic()
        cpu_before = cpu_seconds(daphne.pid)
        model_before = cpu_seconds(model.pid or 0)
        own_before = time.process_time()
        go.set()
        budget = tokens / rate + ramp + 60
        done, pending = await asyncio.wait(tasks, timeout=tokens / rate / 2)  # mid-reply
        streaming = rss_kib(daphne.pid)
        await snapshot_allocations(daphne.pid)
        if tracing:  # 3: as the first reply ends, the others nearly
            await asyncio.wait(tasks, timeout=budget, return_when=asyncio.FIRST_COMPLETED)
            await snapshot_allocations(daphne.pid)
        done, pending = await asyncio.wait(tasks, timeout=budget)
        peak = max(peak, rss_kib(daphne.pid))
        if tracing:  # 4: every turn over, every socket closed
            await asyncio.sleep(10)  # the server's side of each close, its consumer's end
            await snapshot_allocations(daphne.pid)
        cpu = cpu_seconds(daphne.pid) - cpu_before
        model_cpu = cpu_seconds(model.pid or 0) - model_before
        own_cpu = time.process_time() - own_before
        stalled = [PROGRESS.get(u, "?") for u, t in zip(urls, tasks, strict=True) if t in pending]
        for task in pending:
            task.cancel()
        elapsed = time.monotonic() - started
    finally:
        gc.enable()
        members = family(daphne.pid)
        daphne.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            daphne.wait(10)
        if daphne.poll() is None:  # it did not stop: no server outlives its bench
            for member in members:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(member, signal.SIGKILL)
            daphne.wait()
        model.terminate()
        model.join(5)
    outcomes = [t.result() for t in done if not t.cancelled() and t.exception() is None]
    errors = [t.exception() for t in done if not t.cancelled() and t.exception() is not None]
    latencies = [x for o in outcomes for x in o.latencies]
    # While every session streams and no turn starts or ends: from twice the ramp (the last
    # turn started a ramp's length ago) until the first turn ends.
    steady = [
        x
        for o in outcomes
        for at, x in zip(o.arrivals, o.latencies, strict=True)
        if started + 2 * ramp <= at <= started + tokens / rate
    ]
    if os.environ.get("BENCH_TRACE"):  # "seconds since go, latency ms" per token, to plot
        lines = [
            f"{at - started:.3f} {x * 1000:.1f}"
            for o in outcomes
            for at, x in zip(o.arrivals, o.latencies, strict=True)
        ]
        Path(os.environ["BENCH_TRACE"]).write_text("\n".join(sorted(lines, key=_seconds)))
    turns = [o.turn_seconds for o in outcomes if o.turn_seconds is not None]
    firsts = [o.first_token_seconds for o in outcomes if o.first_token_seconds is not None]
    unfinished = sessions - len(turns)
    return {
        "sessions": sessions,
        "token_p50_ms": percentile(latencies, 0.5) * 1000,
        "token_p99_ms": percentile(latencies, 0.99) * 1000,
        "steady_p99_ms": percentile(steady, 0.99) * 1000,
        "turn_p99_s": percentile(turns, 0.99),
        "first_p50_s": percentile(firsts, 0.5),
        "first_p99_s": percentile(firsts, 0.99),
        "lost": sum(o.lost for o in outcomes) + unfinished * tokens,
        "unfinished": unfinished,
        "errors": [o.error for o in outcomes if o.error][:3]
        + [repr(e) for e in errors[:3]]
        + [f"stalled after {p}" for p in stalled[:3]],
        "kib_per_session": (peak - baseline) / sessions,
        "kib_idle": (idle - baseline) / sessions,
        "kib_streaming": (streaming - baseline) / sessions,
        "frames_per_s": len(latencies) / elapsed if elapsed else 0.0,
        "wall_s": elapsed,
        "daphne_cpu": cpu / elapsed if elapsed else 0.0,
        "model_cpu": model_cpu / elapsed if elapsed else 0.0,
        "client_cpu": own_cpu / elapsed if elapsed else 0.0,
    }


def raise_file_limit() -> None:
    """Daphne holds two sockets per session (client and model); children inherit the limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))


def main() -> None:
    raise_file_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, nargs="*", default=[50, 200, 500])
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--rate", type=float, default=10.0, help="tokens per second per reply")
    parser.add_argument(
        "--ramp", type=float, default=5.0, help="seconds over which the sessions start their turn"
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="daphnes behind config.serve (needs REDIS_URL)"
    )
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL", "")
    keep = bool(os.environ.get("BENCH_KEEP_DB"))  # to look at the rows after a stall
    with (
        contextlib.nullcontext(tempfile.mkdtemp()) if keep else tempfile.TemporaryDirectory() as tmp
    ):
        database_url = os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
        if keep:
            print(f"database kept at {database_url}")
        setup_django(database_url)
        layer = "redis channel layer + redis locks" if redis_url else "in-memory layer"
        if args.processes > 1:
            if not redis_url:
                parser.error("--processes above 1 needs REDIS_URL (the processes share Redis)")
            layer += f", {args.processes} daphne processes (config.serve)"
        print(
            f"relay bench: {args.tokens} tokens/reply at {args.rate:g} tokens/s, {layer}, "
            f"db {database_url.split(':', 1)[0]}"
        )
        header = (
            f"{'sessions':>8} {'tok p50 ms':>10} {'tok p99 ms':>10} {'turn p99 s':>10} "
            f"{'lost':>5} {'KiB/sess':>9} {'frames/s':>9} {'daphne cpu':>10}"
        )
        print(header)
        for count in args.sessions:
            cookie, ids = make_sessions(count)
            row = asyncio.run(
                run_level(
                    cookie,
                    ids,
                    args.tokens,
                    args.rate,
                    args.ramp,
                    database_url,
                    redis_url,
                    args.processes,
                )
            )
            print(
                f"{row['sessions']:>8} {row['token_p50_ms']:>10.1f} {row['token_p99_ms']:>10.1f} "
                f"{row['turn_p99_s']:>10.2f} {row['lost']:>5} {row['kib_per_session']:>9.1f} "
                f"{row['frames_per_s']:>9.0f} {row['daphne_cpu']:>9.0%}"
            )
            print(
                f"{'':>8} cpu: model server {row['model_cpu']:.0%}, "
                f"clients {row['client_cpu']:.0%}, wall {row['wall_s']:.1f} s; KiB/sess: "
                f"connected {row['kib_idle']:.0f}, mid-reply {row['kib_streaming']:.0f}"
            )
            print(
                f"{'':>8} token p99 while every session streams and none starts or ends "
                f"(from twice the ramp until the first turn ends): {row['steady_p99_ms']:.1f} ms"
            )
            print(
                f"{'':>8} send to first token (a turn's start, deferred while streams are "
                f"behind: play/slack.py): p50 {row['first_p50_s']:.2f} s, "
                f"p99 {row['first_p99_s']:.2f} s"
            )
            if row["errors"] or row["unfinished"]:
                print(f"         unfinished={row['unfinished']} errors={row['errors']}")
        print("target: 500 sessions with token p99 < 50 ms and 0 frames lost")


if __name__ == "__main__":
    main()
