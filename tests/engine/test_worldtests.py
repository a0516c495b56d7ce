"""engine.worldtests: a creator's playthrough tests, parsed with paths and played step by step
through the real turn with scripted, offline or replayed narrators."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.llm.offline import OfflineProvider
from engine.llm.recording import Recording, RecordingProvider
from engine.session import SessionState
from engine.turn import PlayerAction, Turn
from engine.world import load_world
from engine.worldtests import (
    SuiteError,
    TestResult,
    dump_test,
    parse_suite,
    run_suite,
    run_test,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "studio" / "fixtures"
WORLD = load_world(
    {
        "name": "Salt road",
        "variables": [
            {"id": "gold", "type": "number", "defaultValue": 0},
            {"id": "bag", "type": "json", "defaultValue": {"items": ["rope"]}},
        ],
        "entries": [
            {"id": "narrator", "content": "You narrate."},
            {"id": "ferry", "section": "chat-history", "keywords": ["ferry"], "content": "A boat."},
            {"id": "hello", "role": "greeting", "content": "Dawn over the salt."},
        ],
        "rules": [
            {
                "id": "rich",
                "trigger": {"type": "variable-crossed", "variableId": "gold",
                            "direction": "rises-above", "threshold": 9},
                "actions": [{"type": "notify-player", "message": "You are rich."}],
            },
            {
                "id": "chest",
                "trigger": {"type": "action", "actionId": "open-chest"},
                "actions": [{"type": "modify-variable", "variableId": "gold",
                             "operation": "add", "value": 3}],
            },
        ],
    }
)  # fmt: skip


def run(test: dict[str, Any], world: Any = WORLD) -> TestResult:
    [parsed] = parse_suite({"tests": [test]}).tests
    return asyncio.run(run_test(world, parsed))


def failures(result: TestResult, step: int = 0) -> list[tuple[str, str]]:
    return [(f.field, f.message) for f in result.steps[step].failures]


# --- the format --------------------------------------------------------------------------------


def test_every_problem_of_a_suite_is_named_with_its_path() -> None:
    bad = {
        "tests": [
            {"name": "", "steps": [{"say": "hi", "start": True}]},
            {"name": "x", "steps": [{"say": "hi", "expect": {"textContain": ["a"]}}]},
            {"name": "y", "narrator": "replay", "steps": [{"continue": True}]},
            {"name": "z", "steps": []},
        ]
    }

    with pytest.raises(SuiteError) as raised:
        parse_suite(bad)

    assert raised.value.errors == [
        "tests[0].name: String should have at least 1 character",
        "tests[0].steps[0]: give exactly one input of say, start, action, continue, roll, click",
        "tests[1].steps[0].expect.textContain: Extra inputs are not permitted",
        "tests[2]: narrator replay needs a recording",
        "tests[3].steps: List should have at least 1 item after validation, not 0",
    ]


def test_a_suite_may_be_a_bare_list_of_tests() -> None:
    suite = parse_suite([{"name": "one", "steps": [{"start": True}]}])

    assert [t.name for t in suite.tests] == ["one"]


def test_a_bad_scripted_tool_call_is_refused_with_its_place() -> None:
    with pytest.raises(SuiteError) as raised:
        parse_suite([{"name": "t", "steps": [{"say": "hi", "replies": [{"toolCalls": [{}]}]}]}])

    assert raised.value.errors == [
        "tests[0].steps[0]: replies[0].tool_calls[0].name must be a non-empty string"
    ]


def test_a_test_dumps_back_without_its_defaults() -> None:
    [test] = parse_suite([{"name": "t", "steps": [{"continue": True, "reply": "More."}]}]).tests

    assert dump_test(test) == {"name": "t", "steps": [{"continue": True, "reply": "More."}]}


# --- steps that pass and fail ----------------------------------------------------------------


def test_a_step_checks_text_state_entries_rules_and_notifications() -> None:
    result = run(
        {
            "name": "ferry",
            "steps": [
                {"start": True, "expect": {"text": "Dawn over the salt.", "state": {"@turn": 0}}},
                {
                    "say": "I take the ferry.",
                    "reply": 'The ferryman pays you. [gold: +10] [bag.items: push "oar"]',
                    "expect": {
                        "text": "The ferryman pays you.",
                        "state": {"gold": 10.0, "bag.items.1": "oar", "@turn": 1},
                        "fired": ["ferry"],
                        "notFired": ["hello"],
                        "rules": ["rich"],
                        "notifications": ["You are rich."],
                    },
                },
            ],
        }
    )

    assert result.status == "passed"
    assert [s.status for s in result.steps] == ["passed", "passed"]
    assert result.steps[1].text == "The ferryman pays you."


def test_each_broken_assertion_says_what_was_expected_and_what_happened() -> None:
    result = run(
        {
            "name": "t",
            "steps": [
                {
                    "say": "I wait.",
                    "reply": "Nothing happens.\nThe tide turns.",
                    "expect": {
                        "text": "Nothing happens.\nThe tide rises.",
                        "textContains": ["boat"],
                        "textExcludes": ["tide"],
                        "state": {"gold": True, "bag.items.5": "oar"},
                        "fired": ["ferry"],
                        "notFired": ["narrator"],
                        "notifications": ["You are rich."],
                    },
                }
            ],
        }
    )

    assert result.status == "failed"
    assert failures(result) == [
        ("text", "the text shown differs"),
        ("textContains", 'the text does not show "boat"'),
        ("textExcludes", 'the text shows "tide", which it must not'),
        ("state.gold", "expected true, got 0"),
        ("state.bag.items.5", 'expected "oar", got nothing: the state has no bag.items.5'),
        ("fired", "ferry did not fire; entries that fired: narrator"),
        ("notFired", "narrator fired; entries that fired: narrator"),
        ("notifications", 'expected ["You are rich."], got []'),
    ]
    diff = result.steps[0].failures[0].diff.splitlines()
    assert diff[-2:] == ["-The tide rises.", "+The tide turns."]
    assert result.steps[0].failures[-1].diff == "- You are rich."


def test_a_missing_reply_is_an_error_and_the_rest_of_the_test_is_skipped() -> None:
    result = run({"name": "t", "steps": [{"say": "Hello?"}, {"say": "Anyone?", "reply": "No."}]})

    assert result.status == "error"
    assert [s.status for s in result.steps] == ["error", "skipped"]
    assert result.steps[0].error == (
        "the narrator was asked for reply 1 but the step scripts 0 "
        '(add "reply", or "replies" for a game master\'s tool calls)'
    )


def test_a_reply_the_narrator_never_asked_for_fails_the_step() -> None:
    result = run({"name": "t", "steps": [{"start": True, "reply": "Unused."}]})

    assert failures(result) == [
        ("replies", "the step scripts 1 replies but the narrator was asked for 0")
    ]


def test_an_action_fires_its_rules_and_continue_extends_the_last_reply() -> None:
    result = run(
        {
            "name": "t",
            "state": {"gold": 1},
            "steps": [
                {"action": "open-chest", "expect": {"state": {"gold": 4}, "rules": ["chest"]}},
                {"say": "I look.", "reply": "A chest"},
                {"continue": True, "reply": " full of salt.", "expect": {"text": "full of salt."}},
            ],
        }
    )

    assert result.status == "passed", result.steps


def test_the_offline_narrator_answers_without_a_script() -> None:
    result = run(
        {
            "name": "t",
            "narrator": "offline",
            "steps": [{"say": "I sing.", "expect": {"textContains": ["You sing."]}}],
        }
    )

    assert result.status == "passed", result.steps


def test_a_recording_replays_and_a_changed_prompt_is_an_error() -> None:
    recording = Recording()
    live = RecordingProvider(OfflineProvider("en", random.Random(1)), recording)
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    turn = Turn(
        WORLD, SessionState.initial(WORLD), [], PlayerAction("message", "I sing."), live,
        clock=lambda: now, rng=random.Random(1), seed=1,
    )  # fmt: skip
    asyncio.run(turn.run())
    test = {"name": "t", "narrator": "replay", "recording": recording.to_dict()}

    said = {"text": "You sing. Nothing changes."}
    replayed = run({**test, "steps": [{"say": "I sing.", "expect": said}]})
    changed = run({**test, "steps": [{"say": "I dance."}]})

    assert replayed.status == "passed", replayed.steps
    assert changed.steps[0].error == (
        "the recording holds no reply for this step's request (the prompt changed)"
    )


def test_a_suite_reports_each_test_as_it_ends() -> None:
    suite = parse_suite(
        [
            {"name": "a", "steps": [{"start": True}]},
            {"name": "b", "steps": [{"start": True, "expect": {"text": "Dusk."}}]},
        ]
    )
    heard: list[str] = []

    result = asyncio.run(run_suite(WORLD, suite, on_test=lambda t: heard.append(t.name)))

    assert heard == ["a", "b"]
    assert (result.passed, result.count("passed"), result.count("failed")) == (False, 1, 1)


# --- the bundled demo worlds -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["demo_world", "gm_demo_world"])
def test_the_demo_worlds_ship_with_tests_that_pass(name: str) -> None:
    world = load_world(FIXTURES / f"{name}.json")
    suite = parse_suite(json.loads((FIXTURES / f"{name}.tests.json").read_text("utf-8")))

    result = asyncio.run(run_suite(world, suite))

    assert [(t.name, t.status) for t in result.tests if t.status != "passed"] == []
    assert len(result.tests) >= 4


def test_a_game_master_step_checks_the_kind_of_action() -> None:
    world = load_world(FIXTURES / "gm_demo_world.json")
    result = run(
        {
            "name": "t",
            "character": "ren",
            "narrator": "offline",
            "steps": [{"say": "go south", "expect": {"kind": "master"}}],
        },
        world,
    )

    assert failures(result) == [("kind", "expected a master action, got engine")]
