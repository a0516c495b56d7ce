"""The client side of the fault suite (issue 17): a player that reconnects by itself as the play
page does and notes when each reply ended, the audit of a session after a fault, and the fault
table.

Every fault test plays ``RUNS`` rounds (env ``FABULA_FAULT_RUNS``, 3 by default) and records a
row of the fault table: lost updates, duplicated messages, half-applied states and how long after
the fault ended each client got its end frame. With ``FABULA_FAULT_REPORT`` set, rows are also
appended to that file as JSON lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed

from tests.integration.faults import HIT_TEXT
from tests.integration.play_cluster import Daphne, Socket, open_socket

END_FRAME_LIMIT = 10.0  # seconds after the fault ends, for every client (issue 17)


# --- a player --------------------------------------------------------------------------------


class Player:
    """A websocket client that reads all the time and reconnects by itself (to ``server``, which
    a test may point elsewhere, as a load balancer would), noting when each reply ended: a
    ``message_done``/``message_failed`` frame, or a history that shows it settled."""

    def __init__(self, server: Daphne, session_id: Any, cookie: str) -> None:
        self.server = server
        self.session_id = session_id
        self.cookie = cookie
        self.sock: Socket | None = None
        self.ended: dict[int, tuple[float, str]] = {}
        self.close_codes: list[int | None] = []
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.online = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())
        await asyncio.wait_for(self.online.wait(), 30)

    async def stop(self) -> None:
        self._stopping = True
        if self.sock is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.sock.close(), 10)
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=10)

    async def _run(self) -> None:
        while not self._stopping:
            if self.sock is None:
                await self._connect()
            if self.sock is None:
                return  # stopped while connecting
            try:
                # No wait_for here: on Python 3.11 it can swallow the cancel of stop().
                frame = json.loads(await self.sock.ws.recv())
            except ConnectionClosed as exc:
                self.close_codes.append(exc.rcvd.code if exc.rcvd else None)
                self.sock = None
                self.online.clear()
                continue
            self._note(frame)

    async def _connect(self) -> None:
        while not self._stopping:
            try:
                sock, history = await open_socket(self.server, self.session_id, self.cookie)
            except Exception:  # refused, or closed at once while Redis is down
                await asyncio.sleep(0.2)
                continue
            self.sock = sock
            self._note(history)
            self.online.set()
            return

    def _note(self, frame: dict[str, Any]) -> None:
        now = time.monotonic()
        kind = frame["type"]
        if kind == "history":
            for m in frame["messages"]:
                if m["role"] == "assistant" and m["status"] != "streaming":
                    self.ended.setdefault(m["id"], (now, m["status"]))
        elif kind == "message_failed":
            self.ended.setdefault(frame["message_id"], (now, "failed"))
        elif kind == "message_done" and frame["message"]["role"] == "assistant":
            self.ended.setdefault(frame["message"]["id"], (now, frame["message"]["status"]))
        self.inbox.put_nowait(frame)

    async def send(self, **frame: Any) -> None:
        while True:
            await asyncio.wait_for(self.online.wait(), 30)
            assert self.sock is not None
            try:
                await self.sock.send(**frame)
                return
            except ConnectionClosed:
                await asyncio.sleep(0.05)

    async def send_turn(self, text: str, timeout: float = 30) -> int | None:
        """Send ``text``; the id of the reply it started, or None when the answer was busy."""
        while not self.inbox.empty():
            self.inbox.get_nowait()
        await self.send(type="send", text=text)
        mine = False
        deadline = time.monotonic() + timeout
        while True:
            frame = await asyncio.wait_for(self.inbox.get(), max(0.01, deadline - time.monotonic()))
            if frame["type"] == "busy":
                return None
            if frame["type"] == "error":
                raise AssertionError(f"{text!r} was refused: {frame}")
            if frame["type"] == "message_done" and frame["message"]["content"] == text:
                mine = True
            elif frame["type"] == "message_start" and mine:
                return int(frame["message"]["id"])
            elif frame["type"] == "history":  # reconnected meanwhile: find it there
                found = _reply_after(frame["messages"], text)
                if found is not None:
                    return found

    async def settle_after(self, fault: float, grace: float = 3.0) -> None:
        """Wait until this client reconnected after a fault that closed its socket (if it did
        within ``grace`` seconds)."""
        closes = len(self.close_codes)
        deadline = time.monotonic() + grace
        while len(self.close_codes) == closes and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await asyncio.wait_for(self.online.wait(), 30)

    async def wait_end(self, message_id: int, timeout: float = 60) -> tuple[float, str]:
        """When (monotonic) and how the reply ended, as this client learnt it."""
        deadline = time.monotonic() + timeout
        while message_id not in self.ended:
            if time.monotonic() > deadline:
                raise AssertionError(f"no end frame for message {message_id} in {timeout}s")
            await asyncio.sleep(0.02)
        return self.ended[message_id]


def _reply_after(messages: list[dict[str, Any]], text: str) -> int | None:
    for mine, after in itertools.pairwise(messages):
        if mine["role"] == "user" and mine["content"] == text and after["role"] == "assistant":
            return int(after["id"])
    return None


# --- the audit -------------------------------------------------------------------------------


@dataclass
class Audit:
    """What a session looks like after a fault, against what its messages say happened."""

    lost: int = 0  # replies saved complete whose state change is missing
    duplicated: int = 0  # a player message twice, or two replies to one message
    half_applied: int = 0  # a state change without its reply, a reply still streaming, a claim
    complete: int = 0
    failed: int = 0
    notes: list[str] = field(default_factory=list)


def audit_session(session_id: Any, start_health: int = 100) -> Audit:
    """Every complete reply that says ``HIT_TEXT`` applied ``HIT`` once; nothing else changed
    the health."""
    from play.models import Session

    session = Session.objects.get(pk=session_id)
    played = [m for m in session.messages.order_by("position") if not m.is_greeting]
    replies = [m for m in played if m.role == "assistant"]
    audit = Audit(
        complete=sum(m.status == "complete" for m in replies),
        failed=sum(m.status == "failed" for m in replies),
    )
    health = int(session.state["values"]["health"])
    hits = sum(m.status == "complete" and m.content.startswith(HIT_TEXT) for m in replies)
    expected = start_health - 5 * hits
    if health > expected:
        audit.lost = (health - expected) // 5
    elif health < expected:
        audit.half_applied += (expected - health) // 5
    texts = [m.content for m in played if m.role == "user"]
    audit.duplicated = len(texts) - len(set(texts))
    audit.duplicated += sum(a.role == b.role == "assistant" for a, b in itertools.pairwise(played))
    audit.half_applied += sum(m.status == "streaming" for m in replies)
    audit.half_applied += bool(getattr(session, "turn_owner", ""))  # a claim left behind
    last = next((m for m in reversed(played) if m.state), None)
    if last is not None and last.state.get("values") != session.state.get("values"):
        audit.half_applied += 1
        audit.notes.append(f"session {session.state['values']} != last message {last.state}")
    return audit


@dataclass
class FaultRow:
    fault: str
    audits: list[Audit] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)  # end frame after the fault ended
    extra: dict[str, list[float]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def add(self, audit: Audit, *latencies: float, **extra: float) -> None:
        self.audits.append(audit)
        self.latencies.extend(max(0.0, x) for x in latencies)
        for key, value in extra.items():
            self.extra.setdefault(key, []).append(value)

    def totals(self) -> tuple[int, int, int]:
        return (
            sum(a.lost for a in self.audits),
            sum(a.duplicated for a in self.audits),
            sum(a.half_applied for a in self.audits),
        )

    def line(self) -> str:
        lost, dup, half = self.totals()
        lat = self.latencies or [0.0]
        extra = ", ".join(
            f"{k} max {max(v):.1f}s / median {statistics.median(v):.1f}s"
            for k, v in self.extra.items()
        )
        counts = ", ".join(f"{k}: {v}" for k, v in self.counts.items())
        return (
            f"{self.fault:<40} runs {len(self.audits):>3}  lost {lost}  dup {dup}  half {half}  "
            f"end frame max {max(lat):.2f}s median {statistics.median(lat):.2f}s  {extra} {counts}"
        )

    def report(self) -> None:
        print(self.line())
        path = os.environ.get("FABULA_FAULT_REPORT")
        if path:
            lost, dup, half = self.totals()
            row = {
                "fault": self.fault,
                "runs": len(self.audits),
                "lost": lost,
                "duplicated": dup,
                "half_applied": half,
                "end_frame_max": max(self.latencies or [0.0]),
                "end_frame_median": statistics.median(self.latencies or [0.0]),
                "extra": {k: [min(v), statistics.median(v), max(v)] for k, v in self.extra.items()},
                "counts": self.counts,
            }
            with open(path, "a") as out:
                out.write(json.dumps(row) + "\n")


def check(row: FaultRow, result: Any, *latencies: float) -> None:
    assert (result.lost, result.duplicated, result.half_applied) == (0, 0, 0), result
    for latency in latencies:
        assert latency <= END_FRAME_LIMIT, f"{row.fault}: an end frame came {latency:.1f}s late"
