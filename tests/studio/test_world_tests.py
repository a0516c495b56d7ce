"""World tests in the studio (studio.worldtests): the editor (form ⇄ raw JSON), runs on Celery
(eager here) with red or green per step, the export for a creator's CI, the demo worlds' tests."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from studio.demo import load_demo
from studio.tasks import run_world_tests
from studio.worldtests.models import WorldTest, WorldTestRun
from studio.worldtests.suites import save_test, start_run
from tests.studio.view_helpers import errors_of, hx, is_partial, login, publish

pytestmark = pytest.mark.django_db

HURT = {
    "name": "A fall hurts",
    "steps": [
        {
            "say": "I jump.",
            "reply": "You land badly. [health: -85]",
            "expect": {"state": {"health": 15}, "rules": ["low-health-warning"]},
        }
    ],
}
STEP = {
    "step-TOTAL_FORMS": "1",
    "step-INITIAL_FORMS": "0",
    "step-MIN_NUM_FORMS": "0",
    "step-MAX_NUM_FORMS": "1000",
}


def url(name: str, world: Any, *args: Any) -> str:
    return reverse(f"studio:{name}", args=[world.pk, *args])


def form_post(**fields: str) -> dict[str, str]:
    """A post of the form side with one step row (``step-0-…`` fields)."""
    data = {"editor": "form", "name": "Jump", "seed": "1", "narrator": "scripted", **STEP}
    data.update({k: v for k, v in fields.items() if not k.startswith("step_")})
    data.update(
        {f"step-0-{k.removeprefix('step_')}": v for k, v in fields.items() if k.startswith("step_")}
    )
    return data


# --- the list and the editor -------------------------------------------------------------------


def test_the_list_shows_each_test_with_its_steps(client: Client, alice: Any, world: Any) -> None:
    save_test(world, HURT)

    page = login(client, alice).get(url("world_tests", world)).content.decode()

    assert 'data-world-test="A fall hurts"' in page
    assert "1 step" in page
    assert "The tests have not run yet." in page


def test_a_test_written_in_the_form_is_stored_as_the_engine_reads_it(
    client: Client, alice: Any, world: Any
) -> None:
    data = form_post(
        start_state="health = 50",
        step_kind="say",
        step_input="I jump.",
        step_reply="You land badly. [health: -40]",
        step_expect_contains="land",
        step_expect_state="health = 10",
        step_expect_rules="low-health-warning",
        step_check_notifications="on",
        step_expect_notifications="You reel.",
    )

    response = login(client, alice).post(url("world_test_new", world), data)

    assert response.status_code == 302
    [test] = WorldTest.objects.filter(world=world)
    assert test.definition == {
        "name": "Jump",
        "state": {"health": 50},
        "steps": [
            {
                "say": "I jump.",
                "reply": "You land badly. [health: -40]",
                "expect": {
                    "textContains": ["land"],
                    "state": {"health": 10},
                    "rules": ["low-health-warning"],
                    "notifications": ["You reel."],
                },
            }
        ],
    }


def test_a_test_written_as_raw_json_is_stored(client: Client, alice: Any, world: Any) -> None:
    data = {"editor": "json", "test_json": json.dumps(HURT)}

    response = login(client, alice).post(url("world_test_new", world), data)

    assert response.status_code == 302
    assert WorldTest.objects.get(world=world).definition == HURT


def test_the_engines_errors_come_back_with_their_paths(
    client: Client, alice: Any, world: Any
) -> None:
    bad = {"name": "Bad", "steps": [{"say": "Hi", "roll": True}, {"click": {"door": "x"}}]}

    response = login(client, alice).post(
        url("world_test_new", world), {"editor": "json", "test_json": json.dumps(bad)}
    )

    assert response.status_code == 400
    assert errors_of(response) == [
        "steps[0]: give exactly one input of say, start, action, continue, roll, click",
        'steps[1]: click is {"location": ID} or {"point": ID}',
    ]
    assert not WorldTest.objects.exists()


def test_a_bad_click_in_the_form_is_shown_on_its_row(
    client: Client, alice: Any, world: Any
) -> None:
    data = form_post(step_kind="click", step_input="the square")

    response = login(client, alice).post(url("world_test_new", world), data)

    assert response.status_code == 400
    assert errors_of(response) == ["steps[0].input: write location:ID or point:ID"]


def test_a_test_the_form_cannot_show_opens_as_raw_json(
    client: Client, alice: Any, world: Any
) -> None:
    test = save_test(
        world, {"name": "Tools", "steps": [{"say": "Hi", "replies": [{"text": "Yo"}]}]}
    )

    simple = save_test(world, {"name": "Plain", "steps": [{"say": "Hi", "reply": "Yo"}]})
    login(client, alice)

    page = client.get(url("world_test", world, test.pk)).content.decode()
    plain = client.get(url("world_test", world, simple.pk)).content.decode()

    assert '<input type="radio" name="editor" value="json" id="id_editor_1" checked>' in page
    assert '<input type="radio" name="editor" value="form" id="id_editor_0" checked>' in plain


def test_switching_to_raw_json_carries_the_rows_over(
    client: Client, alice: Any, world: Any
) -> None:
    data = form_post(step_kind="roll", editor="json")

    response = login(client, alice).post(url("world_test_editor", world), data, **hx())

    assert is_partial(response)
    page = response.content.decode()
    assert "&quot;roll&quot;: true" in page
    assert not WorldTest.objects.exists()  # nothing is saved


def test_a_test_the_form_cannot_show_stays_raw_json_with_a_note(
    client: Client, alice: Any, world: Any
) -> None:
    tools = {"name": "Tools", "steps": [{"say": "Hi", "replies": [{"text": "Yo"}]}]}
    data = {"editor": "form", "test_json": json.dumps(tools)}

    response = login(client, alice).post(url("world_test_editor", world), data, **hx())

    page = response.content.decode()
    assert "The form cannot show every field of this test, so it stays raw JSON." in page
    assert '<input type="radio" name="editor" value="json" id="id_editor_1" checked>' in page


def test_deleting_a_test(client: Client, alice: Any, world: Any) -> None:
    test = save_test(world, HURT)

    response = login(client, alice).post(url("world_test_delete", world, test.pk))

    assert response.status_code == 302
    assert not WorldTest.objects.exists()


# --- runs --------------------------------------------------------------------------------------


def test_running_shows_green_steps(client: Client, alice: Any, world: Any) -> None:
    save_test(world, HURT)

    response = login(client, alice).post(url("world_test_run", world), **hx())

    assert is_partial(response)
    page = response.content.decode()
    assert 'data-run-status="passed"' in page
    assert 'data-test-result="A fall hurts" data-status="passed"' in page
    assert "hx-trigger" not in page  # a finished run is not polled
    assert "1 of 1 tests passed." in page


def test_a_broken_assertion_is_red_with_its_diff(client: Client, alice: Any, world: Any) -> None:
    broken = json.loads(json.dumps(HURT))
    broken["steps"][0]["expect"] = {"state": {"health": 20}, "text": "You land well."}
    save_test(world, broken)

    page = login(client, alice).post(url("world_test_run", world), **hx()).content.decode()

    assert 'data-run-status="failed"' in page
    assert 'data-step-status="failed"' in page
    assert "expected 20, got 15" in page
    assert '<span class="diff-del">-You land well.</span>' in page
    assert '<span class="diff-add">+You land badly.</span>' in page


def test_a_queued_run_is_polled_until_it_ends(client: Client, alice: Any, world: Any) -> None:
    run = WorldTestRun.objects.create(world=world, definition={}, suite={"tests": []})
    login(client, alice)

    polled = client.get(url("world_test_run_status", world, run.pk), **hx()).content.decode()

    assert f'hx-get="{url("world_test_run_status", world, run.pk)}"' in polled
    assert 'hx-trigger="every 1s"' in polled


def test_a_run_delivered_twice_reports_once(alice: Any, world: Any) -> None:
    save_test(world, HURT)
    run = start_run(world, alice)
    finished = run.finished

    again = run_world_tests.delay(run.pk).get()

    run.refresh_from_db()
    assert again == {"run": run.pk, "status": "passed"}
    assert run.finished == finished


def test_a_run_plays_the_tests_as_they_were_when_asked(alice: Any, world: Any) -> None:
    test = save_test(world, HURT)
    run = WorldTestRun.objects.create(
        world=world, definition=_world_json(world), suite={"tests": [test.definition]}
    )
    test.delete()

    run_world_tests.delay(run.pk).get()

    run.refresh_from_db()
    assert (run.status, run.passed_count) == ("passed", 1)


def _world_json(world: Any) -> dict[str, Any]:
    from studio.worlds import export_world_json

    return export_world_json(world)


def test_a_plain_post_runs_and_goes_back_to_the_list(
    client: Client, alice: Any, world: Any
) -> None:
    save_test(world, HURT)

    response = login(client, alice).post(url("world_test_run", world))

    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert 'data-run-status="passed"' in page


def test_the_export_is_the_file_the_cli_reads(client: Client, alice: Any, world: Any) -> None:
    save_test(world, HURT)

    response = login(client, alice).get(url("world_tests_export", world))

    assert response["Content-Disposition"] == f'attachment; filename="world-{world.pk}.tests.json"'
    assert json.loads(response.content) == {
        "format": "fabula-world-tests",
        "version": 1,
        "tests": [HURT],
    }


# --- who may --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "method", "extra"),
    [
        ("world_tests", "get", ()),
        ("world_test_new", "post", ()),
        ("world_test_run", "post", ()),
        ("world_tests_export", "get", ()),
        ("world_test_editor", "post", ()),
    ],
)
def test_only_the_owner_reaches_the_tests(
    client: Client, alice: Any, bob: Any, charlie: Any, world: Any, name: str, method: str,
    extra: tuple[Any, ...],
) -> None:  # fmt: skip
    target = url(name, world, *extra)
    call = getattr(client, method)
    assert call(target).status_code == 302  # to the login page
    login(client, charlie)
    assert getattr(client, method)(target).status_code == 404
    publish(world)
    login(client, bob)
    assert getattr(client, method)(target).status_code == 403


def test_another_worlds_test_and_run_are_not_found(client: Client, alice: Any, world: Any) -> None:
    from tests.factories import make_world

    other = make_world(alice, id="0b7a3c2e-5d1f-4e8a-9c6b-2f4d8e1a7b31", name="Other")
    test = save_test(other, HURT)
    run = start_run(other, alice)
    login(client, alice)

    assert client.get(url("world_test", world, test.pk)).status_code == 404
    assert client.post(url("world_test_delete", world, test.pk)).status_code == 404
    assert client.get(url("world_test_run_status", world, run.pk), **hx()).status_code == 404


def test_wrong_methods_are_refused(client: Client, alice: Any, world: Any) -> None:
    login(client, alice)

    assert client.get(url("world_test_run", world)).status_code == 405
    assert client.post(url("world_tests", world)).status_code == 405
    assert client.get(url("world_test_editor", world)).status_code == 405


# --- the demo worlds -----------------------------------------------------------------------


def test_the_demo_worlds_ship_with_tests_that_pass() -> None:
    loaded = load_demo()

    for world in (loaded["world"], loaded["gm"]["world"]):
        assert WorldTest.objects.filter(world=world).count() >= 4
        run = start_run(world, None)
        assert run.status == "passed", run.results
    assert load_demo()["tests"] == 0  # loading again changes nothing
