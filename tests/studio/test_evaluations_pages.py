"""The evaluation report pages (issue 13 §2), with Celery eager: the live progress bar, the
report, plots and exports, the transcript, and the view checklist."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from studio.demo import gm_demo_definition
from studio.evaluations.models import Evaluation, EvaluationGame
from studio.evaluations.tasks import run_evaluation
from studio.worlds import import_world
from tests.studio import evaluation_helpers as helpers
from tests.studio.evaluation_helpers import (
    only_run,
    paused_run,
    start,
    url,
)
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

# Eager tasks run the engine through channels' database_sync_to_async, which closes the
# connection between steps: only a transactional test survives that on PostgreSQL.
pytestmark = pytest.mark.django_db(transaction=True)
# The shared fixtures: pytest finds them among the module's names.
gm_world, model, site_model = helpers.gm_world, helpers.model, helpers.site_model

# --- the report and the exports ----------------------------------------------------------


def test_the_progress_bar_polls_while_running_and_reloads_the_page_at_the_end(
    client, alice, gm_world
):
    run = paused_run(alice, gm_world, ["offline"], ["I look around.", "go south"])
    progress = url("evaluation_progress", gm_world, run.pk)

    running = login(client, alice).get(progress + "?live=1", **hx())
    run_evaluation.apply(args=(run.pk,))
    ended = client.get(progress + "?live=1", **hx())

    assert is_partial(running)
    assert 'hx-trigger="every 1s"' in running.content.decode()
    assert 'value="0"' in running.content.decode()
    assert ended["HX-Refresh"] == "true"
    assert "hx-trigger" not in ended.content.decode()


def test_the_exports_hold_every_action_and_the_report(client, alice, gm_world):
    start(client, alice, gm_world)
    run = only_run(gm_world)

    as_csv = client.get(url("evaluation_export", gm_world, run.pk, "csv"))
    as_json = client.get(url("evaluation_export", gm_world, run.pk, "json"))

    lines = list(csv.DictReader(io.StringIO(as_csv.content.decode())))
    assert [line["action"] for line in lines] == [
        "I look around.",
        "I ask Hilda what news there is.",
        "go south",
    ]
    assert as_csv["Content-Disposition"] == f'attachment; filename="evaluation-{run.pk}.csv"'
    data = json.loads(as_json.content)
    assert data["report"]["models"][0]["actions"] == 3
    assert data["report"]["agreement"]["detectors"]["kappa"] > 0.5
    assert len(data["games"][0]["steps"]) == 3


def test_each_plot_downloads_as_svg(client, alice, gm_world):
    start(client, alice, gm_world)
    run = only_run(gm_world)

    for name in ("cost", "errors", "latency"):
        response = client.get(url("evaluation_plot", gm_world, run.pk, name))
        assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
        assert response.content.startswith(b"<svg")
    assert client.get(url("evaluation_plot", gm_world, run.pk, "other")).status_code == 404


def test_the_transcript_shows_each_action_with_what_was_found(client, alice, gm_world):
    start(client, alice, gm_world, kind="auto", games=1, actions=6)
    run = only_run(gm_world)
    game = run.game_rows.get()

    page = client.get(url("evaluation_game", gm_world, run.pk, game.pk)).content.decode()

    assert page.count('class="step"') == 6
    assert 'id="step-5"' in page


# --- the checklist -----------------------------------------------------------------------


def test_the_pages_need_login_and_are_the_owners_only(client, alice, bob, charlie, gm_world):
    start(client, alice, gm_world)
    run = only_run(gm_world)
    game = run.game_rows.get()
    client.logout()
    pages = [
        url("evaluations", gm_world),
        url("evaluation", gm_world, run.pk),
        url("evaluation_progress", gm_world, run.pk),
        url("evaluation_game", gm_world, run.pk, game.pk),
        url("evaluation_export", gm_world, run.pk, "csv"),
    ]
    assert all(client.get(page).status_code == 302 for page in pages)
    assert all(login(client, charlie).get(page).status_code == 404 for page in pages)
    publish(gm_world)
    assert all(login(client, bob).get(page).status_code == 403 for page in pages)
    other = import_world(bob, gm_demo_definition())
    assert login(client, bob).get(url("evaluation", other, run.pk)).status_code == 404


def test_wrong_methods_are_refused(client, alice, gm_world):
    start(client, alice, gm_world)
    run = only_run(gm_world)

    assert client.post(url("evaluation", gm_world, run.pk)).status_code == 405
    assert client.get(url("evaluation_cancel", gm_world, run.pk)).status_code == 405
    assert client.put(url("evaluations", gm_world)).status_code == 405


def test_bad_input_re_renders_the_form_with_its_errors(client, alice, gm_world):
    response = start(client, alice, gm_world, models=[], route="  \n# only a comment", budget="9")

    assert response.status_code == 400
    assert errors_of(response) == [
        "Pick at least one model.",
        "Write at least one action.",
        "Ensure this value is less than or equal to 5.",
    ]
    assert not Evaluation.objects.exists()


def test_a_model_the_user_may_not_use_is_refused(client, alice, gm_world, site_model):
    response = start(client, alice, gm_world, models=["offline"], own_models="gpt-4.1")
    site = start(client, alice, gm_world, models=["site:gpt-5"])

    assert errors_of(response) == ["Set up your own provider first (Account → Model provider)."]
    assert "Select a valid choice. site:gpt-5 is not one of the available choices." in errors_of(
        site
    )
    assert not Evaluation.objects.exists()


def test_the_editor_navigation_links_the_evaluations(client, alice, gm_world):
    page = login(client, alice).get(reverse("studio:settings", args=[gm_world.pk]))

    assert f'href="{url("evaluations", gm_world)}"' in page.content.decode()


def test_games_rows_are_unique_per_model_and_number(alice, gm_world):
    from django.db import IntegrityError, transaction

    run = paused_run(alice, gm_world, ["offline"], ["I hum."])
    with pytest.raises(IntegrityError), transaction.atomic():
        EvaluationGame.objects.create(evaluation=run, model_index=0, number=0)


def test_the_pages_take_the_same_queries_however_many_runs_and_games(
    client, alice, gm_world, django_assert_num_queries
):
    start(client, alice, gm_world, kind="auto", games=1, actions=2)
    small = only_run(gm_world)
    with django_assert_num_queries(QUERIES["list"]):
        client.get(url("evaluations", gm_world))
    start(client, alice, gm_world, kind="auto", games=3, actions=2)
    large = Evaluation.objects.filter(world=gm_world).exclude(pk=small.pk).get()
    start(client, alice, gm_world)

    with django_assert_num_queries(QUERIES["list"]):
        client.get(url("evaluations", gm_world))
    for run in (small, large):
        with django_assert_num_queries(QUERIES["detail"]):
            client.get(url("evaluation", gm_world, run.pk))


# The list builds the start form from the draft (its rows) to offer the world's route.
QUERIES = {"list": 15, "detail": 7}
