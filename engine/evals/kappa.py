"""Agreement between the judge and human labels (issue 13 §2: "report the judge's agreement
(Cohen's κ) next to its verdicts").

Each labelled step and each error class is one yes/no decision: did this step make this error?
``agreement`` pools every decision into one κ and also gives one per class, so a judge that only
ever says "fine" scores 0 however rare errors are, and one that agrees with the labels scores 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's κ of two raters' labels, item by item; None for no items. ValueError when the
    two sequences differ in length. Two raters who always give one same label agree fully (1)."""
    if len(first) != len(second):
        raise ValueError(f"{len(first)} labels against {len(second)}")
    n = len(first)
    if n == 0:
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    one, two = Counter(first), Counter(second)
    chance = sum(one[c] * two[c] for c in one.keys() | two.keys()) / (n * n)
    if chance >= 1.0:
        return 1.0 if observed >= 1.0 else 0.0
    return (observed - chance) / (1 - chance)


@dataclass
class Agreement:
    """How a judge's verdicts compare with the labels."""

    judge: str
    kappa: float | None
    observed: float
    steps: int
    decisions: int
    per_class: dict[str, float | None] = field(default_factory=dict)
    confusion: dict[str, int] = field(default_factory=dict)  # tp, fp, fn, tn

    def to_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "kappa": self.kappa,
            "observed": self.observed,
            "steps": self.steps,
            "decisions": self.decisions,
            "per_class": dict(self.per_class),
            "confusion": dict(self.confusion),
        }


def agreement(
    judge: str,
    truth: Sequence[set[str]],
    predicted: Sequence[set[str]],
    classes: Sequence[str],
) -> Agreement:
    """κ over every (step, class) decision, and per class; the steps align one to one."""
    if len(truth) != len(predicted):
        raise ValueError(f"{len(truth)} labelled steps against {len(predicted)} verdicts")
    said, meant = [], []
    per_class: dict[str, float | None] = {}
    for name in classes:
        a = [name in t for t in truth]
        b = [name in p for p in predicted]
        if any(a) or any(b):
            per_class[name] = cohen_kappa(a, b)
        meant += a
        said += b
    pairs = list(zip(meant, said, strict=True))
    confusion = {
        "tp": sum(m and s for m, s in pairs),
        "fp": sum(s and not m for m, s in pairs),
        "fn": sum(m and not s for m, s in pairs),
        "tn": sum(not m and not s for m, s in pairs),
    }
    observed = (confusion["tp"] + confusion["tn"]) / max(1, len(pairs))
    kappa = cohen_kappa(meant, said)
    return Agreement(judge, kappa, observed, len(truth), len(pairs), per_class, confusion)
