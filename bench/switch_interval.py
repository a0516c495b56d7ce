"""How long an event loop's socket writes wait for the GIL while another thread computes.

Why this exists: a play process runs its event loop beside one database thread
(``database_sync_to_async``). Every ``send`` of the loop lets go of the GIL; while the other
thread has work, the loop then waits up to ``sys.getswitchinterval()`` to take it back. This
bench measures that wait for the default 5 ms interval and for the 0.5 ms that ``config.asgi``
sets: the loop writes 20 timestamped messages to a socket pair every 2 ms for ``--seconds``,
while a thread computes without pause, and the latency from each write to its read is printed.

    .venv/bin/python bench/switch_interval.py
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import threading
import time


def measure(interval: float, seconds: float) -> str:
    sys.setswitchinterval(interval)
    stop = threading.Event()
    done = [0]

    def compute() -> None:  # the database thread with a backlog: pure Python, no pause
        while not stop.is_set():
            total = 0
            for i in range(20_000):
                total += i * i
            done[0] += 1

    async def loop_side() -> list[float]:
        writer, reader = socket.socketpair()
        writer.setblocking(False)
        reader.setblocking(False)
        latencies: list[float] = []

        def on_read() -> None:
            for stamp in reader.recv(1 << 16).split(b";")[:-1]:
                latencies.append(time.perf_counter() - float(stamp))

        asyncio.get_running_loop().add_reader(reader.fileno(), on_read)
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(20):  # twenty sockets' frames in one pass of the loop
                writer.send(f"{time.perf_counter()};".encode())
            await asyncio.sleep(0.002)
        await asyncio.sleep(0.05)
        return latencies

    thread = threading.Thread(target=compute)
    thread.start()
    try:
        latencies = sorted(asyncio.run(loop_side()))
    finally:
        stop.set()
        thread.join()
    n = len(latencies)
    return (
        f"{interval * 1000:>6.1f} ms {n:>8} {latencies[n // 2] * 1000:>8.2f} "
        f"{latencies[int(n * 0.99)] * 1000:>8.2f} {latencies[-1] * 1000:>8.2f} "
        f"{done[0] / seconds:>10.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--interval", type=float, help="(internal) measure this one interval")
    args = parser.parse_args()
    if args.interval is not None:
        print(measure(args.interval, args.seconds))
        return
    print("switch interval    writes  p50 ms   p99 ms   max ms  thread work/s")
    for interval in (0.005, 0.0005, 0.0002):  # each in its own interpreter: a fresh GIL state
        command = [sys.executable, __file__, "--interval", str(interval)]
        subprocess.run([*command, "--seconds", str(args.seconds)], check=True)
    print("a shorter interval: more writes and a lower p99, the loop gets the GIL back sooner;")
    print("the thread's work per second is what the database thread gives up for it")


if __name__ == "__main__":
    main()
