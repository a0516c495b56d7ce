"""The report (engine.evals.report): counts per class per model, the worst examples, cost per
action and per game, latency, a route side by side, the CSV export."""

from __future__ import annotations

import csv
import io

import pytest

from engine.evals.report import Game, build_report, percentile, route_rows, step_weight, to_csv
from engine.evals.transcript import Transcript
from tests.engine.evals.worlds import step


def played(index, cost=0.002, latency=1000.0, findings=(), **more):
    usage = {
        "input_tokens": 100,
        "output_tokens": 20,
        "cache_read_tokens": 300,
        "cache_write_tokens": 0,
        "cost": cost,
    }
    found = [{"class": c, "source": "detector", "detail": d} for c, d in findings]
    return step("Narrated.", index=index, usage=usage, latency_ms=latency, findings=found, **more)


def games():
    haiku = [
        Game(Transcript("haiku", 0, steps=[played(0), played(1, findings=[("length", "")])]), "g1"),
        Game(
            Transcript(
                "haiku",
                1,
                steps=[played(0, findings=[("secret-leak", "x")]), played(1, error="overloaded")],
            ),
            "g2",
            0.001,
        ),
    ]
    sonnet = [Game(Transcript("sonnet", 0, steps=[played(0, cost=0.01, latency=3000.0)]), "g3")]
    return [*haiku, *sonnet]


def test_counts_per_class_per_model_and_the_classes_in_order():
    report = build_report(games())

    haiku, sonnet = report.models
    assert haiku.errors == {"length": 1, "secret-leak": 1}
    assert sonnet.errors == {}
    assert report.classes == ["secret-leak", "length"]
    assert report.total_errors == 2


def test_cost_per_action_and_per_game_leave_failed_actions_and_the_player_apart():
    haiku = build_report(games()).summary("haiku")

    assert (haiku.games, haiku.actions, haiku.failed) == (2, 3, 1)
    assert haiku.cost == pytest.approx(0.006)
    assert haiku.cost_per_action == pytest.approx(0.002)
    assert haiku.cost_per_game == pytest.approx(0.003)
    assert haiku.extra_cost == pytest.approx(0.001)
    assert haiku.cache_share == pytest.approx(0.75)
    assert build_report(games()).total_cost == pytest.approx(0.006 + 0.001 + 0.01)


def test_latency_keeps_each_action_and_its_percentiles():
    sonnet = build_report(games()).summary("sonnet")

    assert sonnet.latencies == [3000.0]
    assert (sonnet.latency_p50, sonnet.latency_p90) == (3000.0, 3000.0)
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([], 90) == 0.0


def test_the_worst_examples_come_first_with_their_link():
    worst = build_report(games()).worst

    assert [(e.model, e.ref, e.index, e.classes) for e in worst] == [
        ("haiku", "g2", 0, ["secret-leak"]),
        ("haiku", "g1", 1, ["length"]),
    ]


def test_a_rule_broken_in_what_was_shown_weighs_more_than_one_the_check_caught():
    shown = played(0, findings=[("time-advanced", "shown to the player")])
    caught = played(0, findings=[("time-advanced", "caught by the closure check")])

    assert step_weight(shown) > step_weight(caught) > 0


def test_a_route_lays_out_one_row_per_action_one_cell_per_model():
    a = Transcript("a", steps=[played(0, action="go"), played(1, action="hum")])
    b = Transcript("b", steps=[played(0, action="go")])

    rows = route_rows([a, b])

    assert [r["action"] for r in rows] == ["go", "hum"]
    assert rows[1]["cells"][1] is None


def test_the_csv_has_one_line_per_action_with_its_classes():
    lines = list(csv.DictReader(io.StringIO(to_csv(games()))))

    assert len(lines) == 5
    assert lines[1]["errors"] == "length"
    assert lines[3]["narration"] == "[failed] overloaded"
    assert lines[4]["cost"] == "0.010000" and lines[4]["model"] == "sonnet"


def test_the_report_is_plain_json_data():
    data = build_report(games(), {"detectors": {"kappa": 0.7}}).to_dict()

    assert data["agreement"] == {"detectors": {"kappa": 0.7}}
    assert data["models"][0]["model"] == "haiku"
