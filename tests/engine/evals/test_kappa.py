"""Cohen's κ and the judge measured on the labelled set (engine.evals.kappa, .labelled,
.classify)."""

from __future__ import annotations

import json

import pytest

from engine.evals.classes import ERROR_CLASSES
from engine.evals.classify import judge_labelled
from engine.evals.judge import OfflineJudge, Verdict
from engine.evals.kappa import agreement, cohen_kappa
from engine.evals.labelled import load_labelled
from engine.evals.transcript import Finding
from engine.llm.base import Usage
from tests.engine.evals.worlds import worlds


def test_kappa_of_a_textbook_table():
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: po = .70, pe = .50, κ = .40
    first = ["y"] * 25 + ["n"] * 25
    second = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15

    assert cohen_kappa(first, second) == pytest.approx(0.4)


def test_kappa_is_one_for_full_agreement_and_zero_for_a_rater_who_always_says_no():
    truth = [True, False, False, True, False]

    assert cohen_kappa(truth, truth) == 1.0
    assert cohen_kappa(truth, [False] * 5) == 0.0
    assert cohen_kappa([False] * 3, [False] * 3) == 1.0


def test_kappa_refuses_raters_of_different_lengths_and_has_no_value_for_nothing():
    with pytest.raises(ValueError, match="3 labels against 2"):
        cohen_kappa([1, 2, 3], [1, 2])
    assert cohen_kappa([], []) is None


def test_agreement_pools_every_step_and_class_and_keeps_one_kappa_per_class():
    truth = [{"length"}, set(), {"secret-leak", "length"}, set()]
    said = [{"length"}, {"length"}, {"secret-leak"}, set()]

    result = agreement("j", truth, said, ("length", "secret-leak", "refusal"))

    assert result.decisions == 12 and result.steps == 4
    assert result.confusion == {"tp": 2, "fp": 1, "fn": 1, "tn": 8}
    assert result.per_class["secret-leak"] == 1.0
    assert "refusal" not in result.per_class  # nobody ever said it
    assert result.kappa == pytest.approx(
        cohen_kappa(
            [True, False, False, False, False, False, True, True, False, False, False, False],
            [True, False, False, True, False, False, False, True, False, False, False, False],
        )
    )


def test_the_labelled_set_is_twenty_odd_transcripts_of_both_demo_worlds():
    labelled = load_labelled()

    assert 20 <= len(labelled) <= 30
    assert {item.world for item in labelled} == {"brackenford", "lantern"}
    assert sum(len(item.labels) for item in labelled) >= 40
    labels = {c for item in labelled for step in item.labels for c in step}
    assert {"secret-leak", "unknown-name", "lie-accepted", "contradicts-roll"} <= labels
    assert any(not step for item in labelled for step in item.labels)  # good play too


def test_a_label_of_an_unknown_class_fails_loading(tmp_path):
    bad = {
        "transcripts": [
            {
                "id": "x",
                "world": "lantern",
                "labels": [["typo-class"]],
                "transcript": {"model": "m", "steps": [{"index": 0, "action": "a"}]},
            }
        ]
    }
    path = tmp_path / "labelled.json"
    path.write_text(json.dumps(bad))

    with pytest.raises(ValueError, match="x: unknown classes typo-class"):
        load_labelled(path)


async def test_the_detectors_agree_with_the_labels_well_but_not_perfectly():
    result, usage = await judge_labelled(OfflineJudge(), load_labelled(), worlds())

    assert 0.6 < result.kappa < 0.95
    assert result.confusion["fn"] > 0  # what only a judge can see (a lie believed…)
    assert result.confusion["fp"] > 0  # a song about a death is no death
    assert usage == Usage()


class Oracle:
    """A judge that returns the labels themselves, to check the pipeline adds them up."""

    name = "oracle"

    def __init__(self) -> None:
        self.labels = [c for item in load_labelled() for c in item.labels]
        self.n = 0

    async def judge(self, step, scene):
        labels, self.n = self.labels[self.n], self.n + 1
        return Verdict([Finding(c, "judge") for c in labels], Usage(cost=0.001))


async def test_a_judge_adds_what_the_detectors_cannot_see():
    result, usage = await judge_labelled(Oracle(), load_labelled(), worlds())

    assert result.confusion["fn"] == 0
    assert result.kappa > 0.85
    assert usage.cost == pytest.approx(0.001 * result.steps)
    assert set(result.per_class) <= set(ERROR_CLASSES)
