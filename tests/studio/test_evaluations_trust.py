"""Evaluations a creator can trust (issue 35 §7): κ's error is saved when the judge is down; a
judge outage is not blamed on the evaluated model and its played turns are kept; a failed
action keeps the player's move in the export; a cancelled run reads what it played; the
automatic player holds seed 001's 40 % of break attempts."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from asgiref.sync import async_to_sync

from engine.evals.player import TACTICS
from engine.evals.runner import ActionFailed
from engine.llm.base import ProviderError
from studio.evaluations.models import EvaluationAction
from studio.evaluations.service import progress_of
from studio.evaluations.steps import run_action
from studio.evaluations.tasks import finish_evaluation
from tests.studio import evaluation_helpers as helpers
from tests.studio.evaluation_helpers import only_run, paused_run, start, url
from tests.studio.view_helpers import login

pytestmark = pytest.mark.django_db(transaction=True)
gm_world = helpers.gm_world


class DownJudge:
    name = "model:judge"

    async def judge(self, step, scene):
        raise ProviderError("the judge's provider is down (503)", status=503)


def steps_of(run) -> list[dict]:
    rows = EvaluationAction.objects.filter(game__evaluation=run).order_by("game", "index")
    return [r.step for r in rows]


def test_kappas_error_is_saved_when_the_judge_is_down_and_the_page_says_so(client, alice, gm_world):
    run = paused_run(alice, gm_world, ["offline"], ["I look around."])
    down = ProviderError("the judge's provider is down", status=400)

    with mock.patch("studio.evaluations.tasks.measure_agreement", side_effect=down):
        finish_evaluation.apply(args=(run.pk,))

    run.refresh_from_db()
    assert run.agreement == {"error": "the judge's provider is down"}
    page = login(client, alice).get(url("evaluation", gm_world, run.pk)).content.decode()
    assert "κ could not be measured" in page
    assert "κ is measured when the run ends" not in page


def test_a_judge_outage_keeps_the_played_turns_and_fails_no_action(client, alice, gm_world):
    with mock.patch("studio.evaluations.steps._judge", return_value=DownJudge()):
        start(client, alice, gm_world, games=1)

    run = only_run(gm_world)
    steps = steps_of(run)
    assert run.status == "done"
    assert [s["action"] for s in steps] == [
        "I look around.",
        "I ask Hilda what news there is.",
        "go south",
    ]
    assert not any(s["error"] for s in steps)
    assert all("down (503)" in s["judge_error"] for s in steps)
    assert run.game_rows.get().status == "done"
    page = client.get(url("evaluation_game", gm_world, run.pk, run.game_rows.get().pk))
    assert "The judge could not be reached" in page.content.decode()


def test_a_failed_action_keeps_the_players_move_and_tactic_in_the_export(client, alice, gm_world):
    failure = ActionFailed("the master's provider refused", retryable=False)
    with mock.patch("studio.evaluations.steps.play_step", side_effect=failure):
        start(client, alice, gm_world, kind="auto", games=1, actions=5)

    run = only_run(gm_world)
    (failed,) = steps_of(run)
    assert failed["error"] == "the master's provider refused"
    assert failed["action"]  # the automatic player's move, not an empty action
    export = client.get(url("evaluation_export", gm_world, run.pk, "json")).json()
    (step,) = export["games"][0]["steps"]
    assert step["action"] == failed["action"] and step["tactic"] == failed["tactic"]


def test_a_run_cancelled_part_way_reads_what_it_played(client, alice, gm_world):
    run = paused_run(alice, gm_world, ["offline"], ["I look around.", "go south", "go north"])
    game = run.game_rows.get()
    assert async_to_sync(run_action)(game.pk, 0) == "played"

    login(client, alice).post(url("evaluation_cancel", gm_world, run.pk))

    run.refresh_from_db()
    progress = progress_of(run)
    assert (run.status, progress.done, progress.total) == ("cancelled", 1, 3)
    page = client.get(url("evaluation", gm_world, run.pk)).content.decode()
    assert "<strong data-done>1</strong> / <span data-total>3</span>" in page
    assert "κ was not measured" in page


def test_the_automatic_player_breaks_40_percent_of_each_game_with_every_tactic(
    client, alice, gm_world
):
    start(client, alice, gm_world, kind="auto", games=2, actions=10)

    run = only_run(gm_world)
    by_game: dict[int, list[str | None]] = {}
    for action in EvaluationAction.objects.filter(game__evaluation=run):
        by_game.setdefault(action.game_id, []).append(action.step["tactic"])
    assert [sum(1 for t in g if t) for g in by_game.values()] == [4, 4]  # 40 % of 10, each
    assert {t for g in by_game.values() for t in g if t} <= set(TACTICS)
    export = json.loads(client.get(url("evaluation_export", gm_world, run.pk, "json")).content)
    assert len(export["games"]) == 2
