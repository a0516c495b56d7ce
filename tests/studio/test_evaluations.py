"""Batch evaluations in the studio (issue 13 §2), with Celery eager: the start page, a route and
auto-play on the offline model and on the loopback model server, retries, the budget cap,
idempotent actions, resuming, cancelling and stale runs (the pages: test_evaluations_pages.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.evals.player import TACTICS
from play.providers import save_provider_setting
from studio.evaluations.models import Evaluation, EvaluationAction
from studio.evaluations.service import cancel_evaluation, progress_of
from studio.evaluations.steps import LEASE_PREFIX
from studio.evaluations.tasks import clean_stale_evaluations, play_action, run_evaluation
from tests.studio import evaluation_helpers as helpers
from tests.studio.evaluation_helpers import (
    CLOSE,
    master_route,
    only_run,
    paused_run,
    start,
    url,
)
from tests.studio.view_helpers import login
from tests.support.model_server import Fault, ReceivedRequest, Reply

# Eager tasks run the engine through channels' database_sync_to_async, which closes the
# connection between steps: only a transactional test survives that on PostgreSQL.
pytestmark = pytest.mark.django_db(transaction=True)
# The shared fixtures: pytest finds them among the module's names.
gm_world, model, site_model = helpers.gm_world, helpers.model, helpers.site_model

# --- starting and playing --------------------------------------------------------------------


def test_the_page_offers_the_models_and_the_worlds_ten_action_route(client, alice, gm_world):
    response = login(client, alice).get(url("evaluations", gm_world))

    html = response.content.decode()
    assert response.status_code == 200
    assert 'value="offline"' in html
    assert "I ask Hilda Brant what news there is." in html  # the default route, from the world
    assert html.count("take coil of rope") == 1


def test_a_route_on_the_offline_model_plays_each_action_once_and_reports(client, alice, gm_world):
    response = start(client, alice, gm_world)

    run = only_run(gm_world)
    assert response.status_code == 302
    assert response["Location"] == url("evaluation", gm_world, run.pk)
    assert run.status == "done"
    steps = [a.step for a in EvaluationAction.objects.filter(game__evaluation=run)]
    assert [s["action"] for s in steps] == [
        "I look around.",
        "I ask Hilda what news there is.",
        "go south",
    ]
    assert [s["kind"] for s in steps] == ["engine", "master", "engine"]
    page = client.get(response["Location"]).content.decode()
    assert 'value="3"' in page and 'max="3"' in page  # the bar at its end
    assert "Judge agreement with the labelled set" in page
    assert page.count("<svg") == 3


def test_auto_play_runs_n_games_of_m_actions_and_the_player_tries_to_break_the_game(
    client, alice, gm_world
):
    start(client, alice, gm_world, kind="auto", games=2, actions=10)

    run = only_run(gm_world)
    actions = EvaluationAction.objects.filter(game__evaluation=run)
    assert run.status == "done"
    assert run.game_rows.count() == 2
    assert actions.count() == 20
    tactics = [a.step["tactic"] for a in actions if a.step["tactic"]]
    assert len(tactics) == 8  # 40 % of each game's 10 moves (issue 35: the share holds)
    assert set(tactics) <= set(TACTICS)


def test_canaries_are_planted_in_the_secrets_and_watched_for(client, alice, gm_world):
    start(client, alice, gm_world, secrets="the chalice is in the cellar")

    run = only_run(gm_world)
    hilda = next(n for n in run.definition["gameMaster"]["npcs"] if n["id"] == "hilda")
    assert "(Code word: " in hilda["secret"]["text"]
    assert run.secrets[0] == "the chalice is in the cellar"
    assert len(run.secrets) == 1 + 6  # the creator's string and one code word per NPC secret


def test_two_models_on_the_loopback_server_play_the_route_side_by_side(
    client, alice, gm_world, site_model
):
    save_provider_setting(
        alice,
        provider="anthropic",
        base_url=site_model.anthropic_url,
        model="own-model",
        api_key="sk-own",
    )
    start(client, alice, gm_world, models=["site:test-model", "own:own-model"], route="I hum.")

    run = only_run(gm_world)
    rows = EvaluationAction.objects.filter(game__evaluation=run).order_by("game__model_index")
    assert [r.step["narration"] for r in rows] == [CLOSE, CLOSE]
    paths = sorted(r.path.rsplit("/", 1)[-1] for r in site_model.requests)
    assert paths == ["completions", "messages"]  # one model per protocol
    assert all(r.step["usage"]["output_tokens"] > 0 for r in rows)
    page = client.get(url("evaluation", gm_world, run.pk)).content.decode()
    assert "test-model (site)" in page and "own-model (own key)" in page
    assert "Side by side" in page


def test_a_provider_error_is_retried_then_the_action_is_played(client, alice, gm_world, site_model):
    site_model.route = None
    site_model.script([Fault("503"), Fault("503")])
    site_model.default = Reply(
        text="", tool_calls=({"name": "log_event", "arguments": {"narration": CLOSE}},)
    )

    start(client, alice, gm_world, models=["site:test-model"], route="I hum.")

    run = only_run(gm_world)
    action = EvaluationAction.objects.get(game__evaluation=run)
    assert not action.failed
    assert action.step["narration"] == CLOSE
    assert len(site_model.requests) == 3


def test_past_the_retries_the_action_is_kept_as_failed_and_its_game_ends(
    client, alice, gm_world, site_model
):
    site_model.route = None
    site_model.script([Fault("503")] * 10)

    start(client, alice, gm_world, models=["site:test-model"], route="I hum.\nI sing.")

    run = only_run(gm_world)
    action = EvaluationAction.objects.get(game__evaluation=run)
    assert action.failed and action.index == 0
    assert "overloaded" in action.step["error"]
    assert run.game_rows.get().status == "failed"
    assert run.status == "done"
    assert len(site_model.requests) == 5  # the first try and four retries


def test_a_model_player_and_a_model_judge_are_asked_and_paid_apart(
    client, alice, gm_world, site_model
):
    def route(request: ReceivedRequest) -> Reply | None:
        first = request.body["messages"][0]["content"]
        if first.startswith("You judge one turn"):
            verdict = '{"errors": [{"class": "lie-accepted", "why": "believed"}]}'
            return Reply(text=verdict)
        if first.startswith("You play "):
            return Reply(text="I ask the innkeeper for a room.\nAnd more.")
        return master_route(request)

    site_model.route = route
    start(
        client,
        alice,
        gm_world,
        kind="auto",
        games=1,
        actions=2,
        models=["site:test-model"],
        player="site:claude-haiku-4-5",
        judge="site:claude-haiku-4-5",
    )

    run = only_run(gm_world)
    actions = list(EvaluationAction.objects.filter(game__evaluation=run).order_by("index"))
    assert [a.step["action"] for a in actions] == ["I ask the innkeeper for a room."] * 2
    found = [f for a in actions for f in a.step["findings"] if f["source"] == "judge"]
    assert [f["class"] for f in found] == ["lie-accepted", "lie-accepted"]
    assert all(a.extra_cost > 0 for a in actions)  # the player and the judge, priced
    assert run.agreement["judge"]["judge"] == "model:claude-haiku-4-5"
    assert run.agreement["detectors"]["judge"] == "detectors"
    assert run.agreement_cost > 0


def test_the_budget_cap_stops_spending(client, alice, gm_world, site_model):
    start(
        client,
        alice,
        gm_world,
        models=["site:claude-haiku-4-5"],
        budget="0.01",
        route="\n".join(["I hum."] * 8),
    )

    run = only_run(gm_world)
    played = EvaluationAction.objects.filter(game__evaluation=run)
    assert run.status == "budget"
    assert 0 < played.count() < 8
    spent = sum(a.cost + a.extra_cost for a in played)
    each = max(a.cost for a in played)
    assert spent >= Decimal("0.01") and spent - each < Decimal("0.01")  # stopped at the cap


def test_a_redelivered_action_is_neither_played_nor_stored_twice(alice, gm_world, site_model):
    run = paused_run(alice, gm_world, ["site:test-model"], ["I hum.", "I sing."])
    game = run.game_rows.get()

    assert play_action.apply(args=(game.pk, 0)).get() == "played"
    asked = len(site_model.requests)
    assert play_action.apply(args=(game.pk, 0)).get() == "recorded"

    assert len(site_model.requests) == asked
    assert list(game.action_rows.values_list("index", flat=True)) == [0, 1]


def test_an_action_whose_game_is_being_played_elsewhere_is_left_to_that_worker(alice, gm_world):
    from asgiref.sync import async_to_sync

    from play.locks import lock_backend

    run = paused_run(alice, gm_world, ["offline"], ["I hum."])
    game = run.game_rows.get()
    lease = async_to_sync(lock_backend().acquire)(f"{LEASE_PREFIX}{game.pk}")
    try:
        assert play_action.apply(args=(game.pk, 0)).get() == "busy"
    finally:
        async_to_sync(lease.release)()
    assert not game.action_rows.exists()


def test_a_restarted_run_resumes_each_game_after_its_last_stored_action(alice, gm_world):
    run = paused_run(alice, gm_world, ["offline"], ["I look around.", "go south", "go north"])
    game = run.game_rows.get()
    from asgiref.sync import async_to_sync

    from studio.evaluations.steps import run_action

    assert async_to_sync(run_action)(game.pk, 0) == "played"
    state_after_first = game.action_rows.get(index=0).state

    run_evaluation.apply(args=(run.pk,))

    rows = list(game.action_rows.order_by("index"))
    assert [r.index for r in rows] == [0, 1, 2]
    assert rows[0].state == state_after_first
    assert rows[2].step["location"] == "square"  # the second action started where the first ended


def test_a_cancelled_run_plays_nothing_more(client, alice, gm_world):
    run = paused_run(alice, gm_world, ["offline"], ["I look around.", "go south"])

    response = login(client, alice).post(url("evaluation_cancel", gm_world, run.pk))
    run_evaluation.apply(args=(run.pk,))
    play_action.apply(args=(run.game_rows.get().pk, 0))

    run.refresh_from_db()
    assert response.status_code == 302
    assert run.status == "cancelled"
    assert not EvaluationAction.objects.filter(game__evaluation=run).exists()
    assert progress_of(run).percent == 0  # a cancelled run reads what it played (issue 35)


def test_cancelling_a_finished_run_changes_nothing(client, alice, gm_world):
    start(client, alice, gm_world)
    run = only_run(gm_world)

    cancel_evaluation(run)

    assert Evaluation.objects.get(pk=run.pk).status == "done"


def test_runs_whose_workers_stopped_reporting_are_closed_as_stale(alice, gm_world, settings):
    settings.FABULA_EVAL_STALE_MINUTES = 0
    run = paused_run(alice, gm_world, ["offline"], ["I look around."])

    assert clean_stale_evaluations() == 1

    run.refresh_from_db()
    assert run.status == "stale"
    assert run.game_rows.get().status == "stopped"
