"""The closure check against its corpus (issue 34 §5).

Run: ``.venv/bin/python bench/closure.py [--engine DIR] [--corpus DIR]``. Prints, per rule and
language, the recall on the narrations that must be rejected and the false alarms on the near
misses that must pass (tests/engine/gm/corpus/closure/*.json, read by
tests/engine/gm/closure_corpus.py), the totals per language, and the median and p95 time per
narration (target < 5 ms). ``--engine DIR`` runs another copy of ``engine/`` (the figures before
a change: ``git archive HEAD engine studio/fixtures | tar -x -C DIR``, whose demo world is used
too); structured claims are dropped for an engine that does not read them. ``--corpus
tests/engine/gm/corpus/closure/holdout`` measures the held-out set the rules never saw. No model
is called.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=None, help="a directory holding another engine/")
    parser.add_argument("--corpus", default=None, help="another folder of corpus files")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.engine:
        sys.path.insert(0, str(Path(args.engine).resolve()))
    from tests.engine.gm import worlds
    from tests.engine.gm.closure_corpus import LANGUAGES, cases

    demo = Path(args.engine or ROOT) / "studio" / "fixtures" / "gm_demo_world.json"
    if demo.exists():
        worlds.DEMO_PATH = demo  # the demo world as that engine knew it
    corpus = cases(Path(args.corpus)) if args.corpus else cases()
    tally, times = _run(corpus)
    _print(tally, LANGUAGES)
    times.sort()
    median, p95 = statistics.median(times), times[int(len(times) * 0.95)]
    print(f"\n{len(times)} narrations; per narration: median {median:.2f} ms, ", end="")
    print(f"p95 {p95:.2f} ms, max {times[-1]:.2f} ms (target < 5 ms)")
    return 0


def _run(corpus: list[Any]) -> tuple[dict[tuple[str, str], list[int]], list[float]]:
    """Each case checked and timed: per rule and language, [rejects, caught, passes, alarms]."""
    from engine.gm.closure import TurnFacts, check_closure
    from tests.engine.gm.closure_corpus import scene_of, turn_of

    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    times: list[float] = []
    for case in corpus[:: max(1, len(corpus) // 12)]:  # warm up: lexicons, the segmenter
        check_closure(case.narration, _facts(TurnFacts, turn_of(case)), scene_of(case))
    for case in corpus:
        scene, facts = scene_of(case), _facts(TurnFacts, turn_of(case))
        start = time.perf_counter()
        fired = check_closure(case.narration, facts, scene).violations
        times.append((time.perf_counter() - start) * 1000)
        row = tally[(case.rule, case.language)]
        row[0 if case.reject else 2] += 1
        row[1 if case.reject else 3] += (case.rule in fired) if case.reject else bool(fired)
    return tally, times


def _facts(kind: Any, turn: dict[str, Any]) -> Any:
    """The turn's facts; an engine before structured claims takes none."""
    try:
        return kind(**turn)
    except TypeError:
        turn.pop("claims", None)
        return kind(**turn)


def _print(tally: dict[tuple[str, str], list[int]], languages: tuple[str, ...]) -> None:
    print(f"{'rule':24} {'lang':4} {'recall':>14} {'false alarms':>14}")
    per_language: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for (rule, language), (rejects, caught, passes, alarms) in sorted(tally.items()):
        print(f"{rule:24} {language:4} {_pct(caught, rejects):>14} {_pct(alarms, passes):>14}")
        total = per_language[language]
        for n, value in enumerate((rejects, caught, passes, alarms)):
            total[n] += value
    print()
    for language in languages:
        rejects, caught, passes, alarms = per_language[language]
        print(
            f"{'all rules':24} {language:4} {_pct(caught, rejects):>14} {_pct(alarms, passes):>14}"
        )


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f} % ({part}/{whole})" if whole else "-"


if __name__ == "__main__":
    raise SystemExit(main())
