"""CPU of a turn's database trips, with the turn's queries prepared and compiled afresh.

Why: a play process runs every turn's database work on one thread, and under load the turn
starts and ends queue there and take the GIL from the streaming sockets (docs/SCALING.md). This
bench plays the three trips of a live turn (``prepare``, ``commit`` with the running total, the
after-turn checks) for ``--sessions`` sessions in this process, once with the querysets that
``play.prepared`` compiles once, once with each compiled afresh as plain Django does (the
baseline, ``Prepared.plain``), and prints the CPU per turn and the ratio.

    .venv/bin/python bench/turn_trips.py                     # SQLite in a temporary folder
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/fabula_bench_trips \\
        .venv/bin/python bench/turn_trips.py                 # an existing, empty database
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

from relay import make_sessions, setup_django  # bench/relay.py, beside this file


def turn_cpu_ms(session_ids: list[str], round_: int) -> float:
    from engine.turn import TurnResult
    from play.models import Session
    from play.sessions import Player
    from play.turns import _commit, _prepare_unless_seated, _queue_background_work

    owners = dict(Session.objects.filter(pk__in=session_ids).values_list("pk", "owner_id"))
    players = {str(pk): Player(owner) for pk, owner in owners.items()}
    reply = "The caravan moves on. " * 40
    started = time.process_time()
    for sid in session_ids:
        args = ("message", f"I walk on ({round_})", None, None)
        _key, plan = _prepare_unless_seated(sid, players[sid], args, "bench")
        assert plan is not None
        _commit(plan, TurnResult(text=reply, raw=reply, state=plan.state), 1, None)
        _queue_background_work(sid, plan.saved_session)
    return (time.process_time() - started) / len(session_ids) * 1000


def compiled_afresh(use: bool) -> None:
    """Route every prepared queryset through ``plain`` (the baseline) or back."""
    from play.prepared import Prepared, PreparedUpdate

    for kind in (Prepared, PreparedUpdate):
        original: Callable[..., Any] = kind.__dict__.get("_prepared_call", kind.__call__)
        kind._prepared_call = original  # type: ignore[attr-defined]
        kind.__call__ = kind.plain if use else original  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{tmp}/trips.sqlite3"))
        from django.conf import settings

        settings.FABULA_MEMORY_MESSAGES = 10_000  # no summary falls due mid-measure
        _cookie, ids = make_sessions(args.sessions)
        turn_cpu_ms(ids[:20], 0)  # warm: imports, the world cache, the first compile
        plain, prepared = [], []
        for round_ in range(1, args.rounds + 1):  # interleaved, so drift hits both alike
            compiled_afresh(True)
            plain.append(turn_cpu_ms(ids, round_ * 2))
            compiled_afresh(False)
            prepared.append(turn_cpu_ms(ids, round_ * 2 + 1))
        vendor = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        print(f"turn trips, {args.sessions} sessions x {args.rounds} rounds, {vendor}")
        print(f"  compiled afresh (plain Django): {min(plain):6.2f} ms CPU per turn (best round)")
        print(f"  prepared (play.prepared):       {min(prepared):6.2f} ms CPU per turn")
        print(f"  ratio: {min(plain) / min(prepared):.2f}x")


if __name__ == "__main__":
    main()
