"""What an evaluation spends of the site's key (issue 32 §2, studio.evaluations.spending): each
request counts against the owner's daily quota, a new account's first-day share and the site's
budget like a play turn; a run that would not fit is refused up front with the numbers; one run
on the site's key at a time; the worker counts as it goes and stops the run when it is gone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from play.models import DailyActionCount
from play.providers import save_provider_setting
from play.quota import SITE_SUBJECT, utc_day
from studio.evaluations.models import Evaluation, EvaluationAction
from studio.evaluations.tasks import run_evaluation
from tests.studio import evaluation_helpers as helpers
from tests.studio.evaluation_helpers import paused_run, start, url
from tests.studio.view_helpers import errors_of, login
from tests.support.model_server import Reply

pytestmark = pytest.mark.django_db(transaction=True)
gm_world, model, site_model = helpers.gm_world, helpers.model, helpers.site_model


def used(subject: str, count: int) -> None:
    DailyActionCount.objects.create(subject=subject, day=utc_day(timezone.now()), count=count)


def count_of(subject: str) -> int:
    row = DailyActionCount.objects.filter(subject=subject, day=utc_day(timezone.now())).first()
    return row.count if row else 0


def hums(n: int) -> str:
    return "\n".join(["I hum."] * n)


# --- refused up front -------------------------------------------------------------------------


def test_a_run_past_the_site_budget_is_refused_up_front_but_the_users_own_key_is_not_counted(
    client, alice, gm_world, site_model, settings
):
    settings.FABULA_SITE_DAILY_BUDGET = 60
    settings.FABULA_DAILY_ACTION_QUOTA = 1
    used(SITE_SUBJECT, 60)
    save_provider_setting(
        alice, provider="openai", base_url=site_model.openai_url, model="mine", api_key="sk-own"
    )

    refused = start(client, alice, gm_world, models=["site:test-model"], route=hums(3))
    assert refused.status_code == 400
    assert errors_of(refused) == [
        "This evaluation needs about 6 model calls on the site's key, but the site has only 0 "
        "of today's 60 left for everyone. Play fewer games or actions, or use your own key."
    ]
    assert not Evaluation.objects.exists()
    assert site_model.requests == []

    own = start(client, alice, gm_world, models=["own:mine"], route=hums(3))
    assert own.status_code == 302
    assert Evaluation.objects.get().status == "done"
    assert len(site_model.requests) == 3
    assert count_of(f"user:{alice.pk}") == 0
    assert count_of(SITE_SUBJECT) == 60


def test_a_run_past_the_users_daily_quota_is_refused_with_what_is_left(
    client, alice, gm_world, site_model, settings
):
    settings.FABULA_DAILY_ACTION_QUOTA = 200
    used(f"user:{alice.pk}", 160)

    response = start(
        client, alice, gm_world, kind="auto", games=5, actions=13, models=["site:test-model"]
    )

    assert errors_of(response) == [
        "This evaluation needs about 130 model calls on the site's key; you have 40 of your 200 "
        "actions left today. Play fewer games or actions, use your own key, or come back after "
        "midnight UTC."
    ]
    assert not Evaluation.objects.exists()
    assert site_model.requests == []


def test_a_new_account_is_held_to_its_first_day_share(
    client, alice, gm_world, site_model, settings
):
    settings.FABULA_NEW_ACCOUNT_DAILY_QUOTA = 20

    refused = start(client, alice, gm_world, models=["site:test-model"], route=hums(11))
    alice.date_joined = timezone.now() - timedelta(days=2)
    alice.save()
    allowed = start(client, alice, gm_world, models=["site:test-model"], route=hums(11))

    assert errors_of(refused) == [
        "This evaluation needs about 22 model calls on the site's key; your account is new and "
        "has 20 of its 20 first-day actions left. Play fewer games or actions, or use your own "
        "key."
    ]
    assert allowed.status_code == 302
    assert Evaluation.objects.get().status == "done"


def test_a_user_has_one_run_on_the_site_key_at_a_time(client, alice, gm_world, site_model):
    paused_run(alice, gm_world, ["site:test-model"], ["I hum."])

    second = start(client, alice, gm_world, models=["site:test-model"], route=hums(1))
    judged = start(client, alice, gm_world, judge="site:claude-haiku-4-5", route=hums(1))
    offline = start(client, alice, gm_world, route=hums(1))

    message = (
        "You already have an evaluation running on the site's key. Wait for it to end, or "
        "cancel it, before you start another."
    )
    assert errors_of(second) == [message]
    assert errors_of(judged) == [message]
    assert offline.status_code == 302  # the offline model spends nothing
    assert Evaluation.objects.count() == 2


def test_the_estimate_counts_the_master_the_player_the_judge_and_its_kappa(gm_world, alice):
    from studio.evaluations.service import Request
    from studio.evaluations.spending import estimate_calls, labelled_calls
    from studio.worlds import export_world_json

    gm = export_world_json(gm_world)
    plain = {k: v for k, v in gm.items() if k != "gameMaster"}
    site, own = "site:test-model", "own:mine"
    auto = Request(kind="auto", model_keys=[site, own], games=2, actions=5, player=site)
    judged = Request(kind="route", model_keys=[site], route=["a", "b"], judge=site)

    assert estimate_calls(auto, gm) == 10 * (2 + 1) + 10 * 1  # the own model: its player only
    assert estimate_calls(auto, plain) == 10 * (1 + 1) + 10 * 1
    assert estimate_calls(judged, gm) == 2 * (2 + 1) + labelled_calls()
    assert labelled_calls() == 40


# --- counted as it runs -----------------------------------------------------------------------


def test_every_request_to_the_site_key_counts_once_against_the_user_and_the_site(
    client, alice, gm_world, site_model, settings
):
    settings.FABULA_SITE_DAILY_BUDGET = 1000
    site_model.route = lambda request: helpers.master_route(request) or Reply(text='{"errors": []}')

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

    sent = len(site_model.requests)
    assert sent >= 2 + 2 + 2 + 40  # the master, the player, the judge, the judge's κ
    assert count_of(f"user:{alice.pk}") == sent
    assert count_of(SITE_SUBJECT) == sent


def test_an_unpriced_model_is_stopped_by_the_count_when_the_budget_runs_out_mid_run(
    client, alice, gm_world, site_model, settings
):
    settings.FABULA_SITE_DAILY_BUDGET = 60
    run = paused_run(alice, gm_world, ["site:test-model"], ["I hum."] * 8)
    used(SITE_SUBJECT, 57)  # other players spent it meanwhile (or the estimate was too low)

    run_evaluation.apply(args=(run.pk,))

    run.refresh_from_db()
    played = EvaluationAction.objects.filter(game__evaluation=run)
    assert run.status == "budget"
    assert run.error == "quota:site"
    assert played.count() == 3
    assert len(site_model.requests) == 3
    assert sum(a.cost for a in played) == 0  # unpriced: only the count could stop it
    assert count_of(SITE_SUBJECT) == 60
    page = login(client, alice).get(url("evaluation", gm_world, run.pk)).content.decode()
    assert "Stopped: the site&#x27;s key has spent today&#x27;s budget." in page


def test_the_users_quota_running_out_stops_the_run_and_says_so(
    client, alice, gm_world, site_model, settings
):
    settings.FABULA_DAILY_ACTION_QUOTA = 10
    run = paused_run(alice, gm_world, ["site:test-model"], ["I hum."] * 4)
    used(f"user:{alice.pk}", 8)

    run_evaluation.apply(args=(run.pk,))

    run.refresh_from_db()
    assert (run.status, run.error) == ("budget", "quota:user")
    assert run.game_rows.get().status == "stopped"
    assert len(site_model.requests) == 2
    assert count_of(f"user:{alice.pk}") == 10
    page = login(client, alice).get(url("evaluation", gm_world, run.pk)).content.decode()
    assert "Stopped: your actions on the site&#x27;s key are used up for today." in page
