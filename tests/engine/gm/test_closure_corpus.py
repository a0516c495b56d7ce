"""The closure corpus (issue 34 §5): per rule and language at least 30 narrations the check
must reject and 30 near misses it must pass, worded the way fiction is (synonyms, tenses, word
order, idioms, pronouns, names left out); recall ≥ 95 % and false alarms ≤ 2 % for each rule
and language. The data is ``tests/engine/gm/corpus/closure/*.json`` (``closure_corpus``);
``bench/closure.py`` prints the same figures and the time per narration."""

from __future__ import annotations

from collections import defaultdict

import pytest

from engine.gm.closure import VIOLATIONS, TurnFacts, check_closure
from tests.engine.gm.closure_corpus import LANGUAGES, Case, cases, scene_of, turn_of

CASES = cases()
RECALL, FALSE_ALARMS = 0.95, 0.02


def verdict(case: Case) -> list[str]:
    return check_closure(case.narration, TurnFacts(**turn_of(case)), scene_of(case)).violations


def test_every_rule_and_language_has_thirty_to_reject_and_thirty_to_pass():
    counts: dict[tuple[str, str, bool], int] = defaultdict(int)
    for case in CASES:
        counts[(case.rule, case.language, case.reject)] += 1
    for rule in VIOLATIONS:
        for language in LANGUAGES:
            assert counts[(rule, language, True)] >= 30, (rule, language, "reject")
            assert counts[(rule, language, False)] >= 30, (rule, language, "pass")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("rule", VIOLATIONS)
def test_recall_and_false_alarms_per_rule_and_language(rule, language):
    mine = [c for c in CASES if c.rule == rule and c.language == language]
    missed = [c.narration for c in mine if c.reject and rule not in verdict(c)]
    alarms = [(c.narration, verdict(c)) for c in mine if not c.reject and verdict(c)]
    rejects = sum(c.reject for c in mine)
    passes = len(mine) - rejects
    assert len(missed) <= (1 - RECALL) * rejects, missed
    assert len(alarms) <= FALSE_ALARMS * passes, alarms
