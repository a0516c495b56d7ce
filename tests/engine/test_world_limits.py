"""The bounds of the world format (docs/LIMITS.md): text sizes, numbers, nesting, NUL."""

from __future__ import annotations

import json

import pytest

from engine.world import (
    MAX_ENTRY_CONTENT,
    Entry,
    Rule,
    Settings,
    WorldValidationError,
    load_world,
    validate_part,
)


def world(**overrides):
    return {"name": "Bounds", **overrides}


def errors_of(source) -> list[str]:
    with pytest.raises(WorldValidationError) as caught:
        load_world(source)
    return caught.value.errors


def test_an_entry_of_20_mb_is_refused_with_its_path():
    data = world(entries=[{"id": "huge", "content": "x" * (20 * 1024 * 1024)}])
    full = world(entries=[{"id": "full", "content": "x" * MAX_ENTRY_CONTENT}])

    assert errors_of(data) == [
        f"entries[0].content: string should have at most {MAX_ENTRY_CONTENT} characters"
    ]
    assert len(load_world(full).entries[0].content) == MAX_ENTRY_CONTENT


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"maxTokens": 1e30}, "settings.maxTokens: is out of range (too large a number)"),
        (
            {"maxTokens": 10**30},
            "settings.maxTokens: input should be less than or equal to 1000000",
        ),
        (
            {"maxContext": 10**12},
            "settings.maxContext: input should be less than or equal to 100000000",
        ),
        (
            {"lorebookScanDepth": 10**9},
            "settings.lorebookScanDepth: input should be less than or equal to 10000",
        ),
        (
            {"lorebookRecursionDepth": 1000},
            "settings.lorebookRecursionDepth: input should be less than or equal to 100",
        ),
        ({"topK": 10**7}, "settings.topK: input should be less than or equal to 1000000"),
    ],
)
def test_settings_out_of_range_are_refused_with_their_path(settings, error):
    assert errors_of(world(settings=settings)) == [error]


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        (
            {"depth": 2**31},
            "entries[0].depth: input should be less than or equal to 2147483647",
        ),
        (
            {"position": 10**30},
            "entries[0].position: input should be less than or equal to 2147483647",
        ),
    ],
)
def test_entry_numbers_must_fit_the_database(entry, error):
    assert errors_of(world(entries=[{"id": "e", **entry}])) == [error]


def test_rule_numbers_must_fit_the_database():
    rule = {"id": "r", "trigger": {"type": "every-turn"}, "priority": -(10**12)}

    with pytest.raises(WorldValidationError) as caught:
        validate_part(Rule, {**rule, "cooldownTurns": 2**40})

    assert caught.value.errors == [
        "priority: input should be greater than or equal to -2147483647",
        "cooldownTurns: input should be less than or equal to 2147483647",
    ]


def test_extra_keys_300_deep_are_refused_not_kept():
    nested: object = "bottom"
    for _ in range(300):
        nested = {"deeper": nested}

    errors = errors_of(world(futureField=nested))

    assert errors == ["futureField" + ".deeper" * 63 + ": is nested deeper than 64 levels"]
    kept = load_world(world(futureField=json.loads("[" * 60 + "]" * 60)))
    assert kept.model_extra == {"futureField": json.loads("[" * 60 + "]" * 60)}


def test_a_world_file_nested_100000_deep_is_refused(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"name": "x", "a": ' + "[" * 100_000)

    assert errors_of(path) == ["$: " + str(path) + " is nested deeper than 64 levels"]
    assert errors_of('{"name": "x", "a": ' + "[" * 100_000) == [
        "$: world JSON is nested deeper than 64 levels"
    ]


def test_a_part_written_by_a_creator_holds_no_nul_and_no_nan():
    with pytest.raises(WorldValidationError) as caught:
        validate_part(Entry, {"id": "e", "content": "a\0b"})
    assert caught.value.errors == [
        "content: contains a NUL character (U+0000), which cannot be stored"
    ]

    with pytest.raises(WorldValidationError) as caught:
        validate_part(Settings, {"vendorKnob": [1, float("nan")]})
    assert caught.value.errors == ["vendorKnob[1]: must be a finite number"]
