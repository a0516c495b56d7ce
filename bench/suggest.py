"""The suggestion leak filter on its corpus (issue 34 §4, §5).

Run: ``.venv/bin/python bench/suggest.py``. Prints, per language, over the cases of
tests/engine/gm/corpus/suggestions.json played as ``log_event`` plays them (names the narration
delivers learnt first, the narration passed as what the player was just told):

- leaks: buttons that had to go (a plan, a kind word for an NPC he cannot know to be that, an
  unknown name, place or hidden point) and were shown, over all such buttons; target 0;
- over-filtering: legitimate buttons not shown, over all legitimate buttons; target ≤ 5 %;
- near-duplicates left unmerged;
- the median and p95 time of one ``filter_suggestions`` call (the scene is built outside the
  timing; Chinese segmentation's dictionary is loaded before).

No model is called. ``--list`` also prints each leak, drop and unmerged repeat; ``--corpus PATH``
reads another corpus file of the same structure (tests/engine/gm/corpus/suggestions-holdout.json).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.gm.language import segment_zh
from engine.gm.suggest import filter_suggestions, learn_names
from tests.engine.gm.suggest_corpus import CORPUS, LANGUAGES, corpus, scene_of, tally


def corpus_path() -> Path:
    """The file named by ``--corpus PATH``, else the corpus the tests read."""
    if "--corpus" in sys.argv:
        return Path(sys.argv[sys.argv.index("--corpus") + 1])
    return CORPUS


def timings(language: str, rounds: int = 5) -> list[float]:
    """Milliseconds per ``filter_suggestions`` call over the language's cases."""
    data = corpus(corpus_path())
    out = []
    for case in (c for c in data["cases"] if c["language"] == language):
        scene = scene_of(case, data)
        heard = case.get("heard", "")
        learn_names(scene, heard, [scene.character_id])
        given = [item["text"] for item in case["given"]]
        for _ in range(rounds):
            start = time.perf_counter()
            filter_suggestions(given, scene, (), heard=heard)
            out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    segment_zh("预热")  # the dictionary loads once per process, not per call
    figures = tally(corpus(corpus_path()))
    print("language  leaks        over-filtering  unmerged  ms/call (median, p95)")
    for language in LANGUAGES:
        count = figures[language]
        ms = sorted(timings(language))
        p95 = ms[int(len(ms) * 0.95) - 1]
        leaks = f"{len(count.leaks)}/{count.to_drop}"
        over = f"{len(count.dropped)}/{count.legitimate} ({count.over_filtering:.1%})"
        unmerged = f"{len(count.unmerged)}/{count.repeats}"
        print(
            f"{language:<9} {leaks:<12} {over:<15} {unmerged:<9} "
            f"{statistics.median(ms):.2f}, {p95:.2f}"
        )
        if "--list" in sys.argv:
            for line in [*count.leaks, *count.dropped, *count.unmerged]:
                print("   ", line)


if __name__ == "__main__":
    main()
