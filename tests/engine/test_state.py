"""The nine operations on variable values (seed 002 "所有操作", seed 000 "Las nueve
operaciones")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.state import (
    Change,
    Effect,
    Skipped,
    apply_effects,
    apply_operation,
    copy_value,
    resolve_variable,
    same_value,
)
from engine.world import WorldDefinition, load_world


def make_world() -> WorldDefinition:
    return load_world(
        {
            "name": "State",
            "variables": [
                {
                    "id": "health",
                    "name": "Health",
                    "type": "number",
                    "defaultValue": 100,
                    "min": 0,
                    "max": 100,
                },
                {"id": "gold", "type": "number", "defaultValue": 10},
                {"id": "player-hp", "name": "Player HP", "type": "number", "defaultValue": 50},
                {"id": "location", "type": "string", "defaultValue": "tavern"},
                {"id": "log", "type": "string", "defaultValue": "start"},
                {"id": "has-key", "type": "boolean", "defaultValue": False},
                {
                    "id": "inventory",
                    "type": "json",
                    "defaultValue": [{"name": "Sword", "durability": 3}, {"name": "Shield"}],
                },
                {"id": "stats", "type": "json", "defaultValue": {"level": 1}},
                {"id": "npcs", "type": "json"},
                {"id": "quest-log", "type": "json", "defaultValue": []},
                {"id": "hp-cn", "name": "生命值", "type": "number", "defaultValue": 5},
            ],
        }
    )


WORLD = make_world()


def fresh() -> dict[str, Any]:
    return WORLD.default_state()


def apply(values: dict[str, Any], target: str, op: str, value: Any = None, *path: Any) -> Any:
    return apply_operation(WORLD, values, target, op, value, tuple(path))


# --- lookup ------------------------------------------------------------------------------


def test_resolve_variable_finds_by_id_then_by_display_name_case_insensitively() -> None:
    assert resolve_variable(WORLD, "player-hp").id == "player-hp"  # type: ignore[union-attr]
    assert resolve_variable(WORLD, "Player HP").id == "player-hp"  # type: ignore[union-attr]
    assert resolve_variable(WORLD, "  player hp ").id == "player-hp"  # type: ignore[union-attr]
    assert resolve_variable(WORLD, "生命值").id == "hp-cn"  # type: ignore[union-attr]
    assert resolve_variable(WORLD, "nobody") is None


# --- numbers -----------------------------------------------------------------------------


def test_add_subtract_multiply_change_a_number() -> None:
    values = fresh()
    assert apply(values, "gold", "add", 50) == Change("gold", (), 10, 60)
    assert apply(values, "gold", "subtract", 15) == Change("gold", (), 60, 45)
    assert apply(values, "gold", "multiply", 2) == Change("gold", (), 45, 90)
    assert values["gold"] == 90


def test_it_clamps_to_max_and_min() -> None:
    values = fresh()
    assert apply(values, "health", "add", 30) is None  # already at max 100: nothing changed
    assert apply(values, "health", "subtract", 150) == Change("health", (), 100, 0)
    assert apply(values, "health", "set", 250) == Change("health", (), 0, 100)
    assert apply(values, "health", "set", -10) == Change("health", (), 100, 0)


def test_set_coerces_numeric_strings_and_refuses_other_text() -> None:
    values = fresh()
    assert apply(values, "gold", "set", "5") == Change("gold", (), 10, 5)
    assert apply(values, "gold", "set", " 2.5 ") == Change("gold", (), 5, 2.5)
    skipped = apply(values, "gold", "set", "five")
    assert skipped == Skipped("[gold: set 'five']", "'five' is not a number")
    assert apply(values, "gold", "set", True) == Skipped("[gold: set True]", "True is not a number")


def test_arithmetic_rounds_float_noise_and_stores_whole_floats_as_ints() -> None:
    values = {"gold": 0.1}
    assert apply(values, "gold", "add", 0.2) == Change("gold", (), 0.1, 0.3)
    values = fresh()
    apply(values, "gold", "multiply", 0.5)
    assert values["gold"] == 5 and type(values["gold"]) is int


def test_refuses_results_that_are_not_finite() -> None:
    values = {"gold": 1e308}
    result = apply(values, "gold", "multiply", 10)
    assert isinstance(result, Skipped) and result.reason == "the result is not a finite number"
    assert values["gold"] == 1e308


@pytest.mark.parametrize(
    ("target", "op", "value", "reason"),
    [
        ("gold", "append", "x", "append does not apply to number variable 'gold'"),
        ("gold", "toggle", None, "toggle does not apply to number variable 'gold'"),
        ("location", "add", 5, "add does not apply to string variable 'location'"),
        ("location", "toggle", None, "toggle does not apply to string variable 'location'"),
        ("has-key", "append", "x", "append does not apply to boolean variable 'has-key'"),
        ("has-key", "push", 1, "push does not apply to boolean variable 'has-key'"),
        ("gold", "merge", {"a": 1}, "merge does not apply to number variable 'gold'"),
        ("gold", "delete", 0, "delete does not apply to number variable 'gold'"),
        ("gold", "explode", 1, "unknown operation 'explode'"),
        ("mana", "add", 1, "unknown variable 'mana'"),
    ],
)
def test_an_operation_that_does_not_fit_is_skipped_with_the_reason(
    target: str, op: str, value: Any, reason: str
) -> None:
    values = fresh()
    before = copy_value(values)
    result = apply(values, target, op, value)
    assert isinstance(result, Skipped)
    assert result.reason == reason
    assert values == before


def test_operation_names_and_shorthand_aliases_are_accepted() -> None:
    values = fresh()
    assert apply(values, "gold", "ADD", 1) == Change("gold", (), 10, 11)
    assert apply(values, "gold", "+", 1) == Change("gold", (), 11, 12)
    assert apply(values, "gold", "-", 2) == Change("gold", (), 12, 10)
    assert apply(values, "gold", "*", 3) == Change("gold", (), 10, 30)


# --- strings and booleans ----------------------------------------------------------------


def test_append_concatenates_and_set_turns_scalars_into_text() -> None:
    values = fresh()
    assert apply(values, "log", "append", ", found key") == Change(
        "log", (), "start", "start, found key"
    )
    assert apply(values, "location", "set", 5) == Change("location", (), "tavern", "5")
    assert apply(values, "location", "set", True) == Change("location", (), "5", "true")
    result = apply(values, "location", "set", {"a": 1})
    assert isinstance(result, Skipped) and result.reason == "set needs text, got object"


def test_toggle_flips_a_boolean_and_set_reads_true_and_false_words() -> None:
    values = fresh()
    assert apply(values, "has-key", "toggle") == Change("has-key", (), False, True)
    assert apply(values, "has-key", "toggle") == Change("has-key", (), True, False)
    assert apply(values, "has-key", "set", "true") == Change("has-key", (), False, True)
    assert apply(values, "has-key", "set", "no") == Change("has-key", (), True, False)
    assert apply(values, "has-key", "set", 1) == Change("has-key", (), False, True)
    result = apply(values, "has-key", "set", "maybe")
    assert isinstance(result, Skipped) and result.reason == "'maybe' is not true or false"


def test_no_change_is_recorded_when_the_value_is_the_same() -> None:
    values = fresh()
    assert apply(values, "location", "set", "tavern") is None
    assert apply(values, "gold", "set", 10.0) is None
    assert apply(values, "stats", "set", {"level": 1}) is None
    assert apply(values, "stats", "merge", {"level": 1}) is None


def test_a_missing_variable_starts_from_its_default() -> None:
    values: dict[str, Any] = {}
    assert apply(values, "gold", "add", 5) == Change("gold", (), 10, 15)
    assert values == {"gold": 15}


# --- json --------------------------------------------------------------------------------


def test_push_appends_in_place_and_records_the_new_index() -> None:
    values = fresh()
    array = values["inventory"]
    item = {"name": "Bow"}
    assert apply(values, "inventory", "push", item) == Change("inventory", (2,), None, item)
    assert values["inventory"] is array
    assert array[2] == item and array[2] is not item  # stored as a copy


def test_push_onto_the_default_empty_object_starts_an_array() -> None:
    values = fresh()
    assert apply(values, "npcs", "push", "Aria") == Change("npcs", (0,), None, "Aria")
    assert values["npcs"] == ["Aria"]


def test_merge_is_shallow_and_records_only_the_merged_keys() -> None:
    values = {"stats": {"level": 1, "str": 5, "nested": {"a": 1}}}
    change = apply(values, "stats", "merge", {"level": 2, "dex": 3, "nested": {"b": 2}})
    assert change == Change(
        "stats", (), {"level": 1, "nested": {"a": 1}}, {"level": 2, "dex": 3, "nested": {"b": 2}}
    )
    assert values["stats"] == {"level": 2, "str": 5, "nested": {"b": 2}, "dex": 3}


def test_merge_and_push_refuse_the_wrong_container_or_value() -> None:
    values = fresh()
    assert apply(values, "inventory", "merge", {"a": 1}) == Skipped(
        "[inventory: merge {'a': 1}]", "merge does not apply to array 'inventory'"
    )
    assert apply(values, "stats", "push", 1) == Skipped(
        "[stats: push 1]", "push does not apply to object 'stats'"
    )
    assert apply(values, "stats", "merge", [1]) == Skipped(
        "[stats: merge [1]]", "merge needs an object, got array"
    )


def test_delete_removes_a_key_or_an_index() -> None:
    values = {"stats": {"level": 1, "old-field": 2}, "inventory": ["a", "b", "c"]}
    assert apply(values, "stats", "delete", "old-field") == Change("stats", ("old-field",), 2, None)
    assert apply(values, "inventory", "delete", 0) == Change("inventory", (0,), "a", None)
    assert apply(values, "inventory", "delete", -1) == Change("inventory", (1,), "c", None)
    assert apply(values, "inventory", "delete", "0") == Change("inventory", (0,), "b", None)
    assert values == {"stats": {"level": 1}, "inventory": []}


def test_delete_of_something_missing_is_skipped() -> None:
    values = fresh()
    assert apply(values, "inventory", "delete", 5) == Skipped(
        "[inventory: delete 5]", "index 5 is out of range for array 'inventory' (2 items)"
    )
    assert apply(values, "stats", "delete", "nope") == Skipped(
        "[stats: delete 'nope']", "'stats' has no key 'nope'"
    )
    assert apply(values, "stats", "delete", True) == Skipped(
        "[stats: delete True]", "delete needs a key or an index, got boolean"
    )


def test_dot_paths_create_missing_intermediate_objects() -> None:
    values = fresh()
    change = apply(values, "npcs", "add", 5, "aria", "affinity")
    assert change == Change("npcs", ("aria", "affinity"), None, 5)
    assert values["npcs"] == {"aria": {"affinity": 5}}
    apply(values, "npcs", "set", "happy", "aria", "mood")
    apply(values, "npcs", "toggle", None, "aria", "met")
    apply(values, "npcs", "append", "hi", "aria", "log")
    assert values["npcs"] == {"aria": {"affinity": 5, "mood": "happy", "met": True, "log": "hi"}}


def test_dot_paths_index_arrays() -> None:
    values = fresh()
    assert apply(values, "inventory", "subtract", 1, 0, "durability") == Change(
        "inventory", (0, "durability"), 3, 2
    )
    assert apply(values, "inventory", "set", 5, "1", "durability") == Change(
        "inventory", (1, "durability"), None, 5
    )
    assert values["inventory"] == [
        {"name": "Sword", "durability": 2},
        {"name": "Shield", "durability": 5},
    ]


def test_a_failed_dot_path_operation_creates_nothing() -> None:
    values = {"npcs": {"aria": {"mood": "calm"}}}
    result = apply(values, "npcs", "add", 1, "aria", "mood")
    assert result == Skipped(
        "[npcs.aria.mood: add 1]", "add does not apply to string 'npcs.aria.mood'"
    )
    result = apply(values, "npcs", "merge", 5, "bob", "stats")
    assert isinstance(result, Skipped)
    assert values == {"npcs": {"aria": {"mood": "calm"}}}


def test_dot_paths_refuse_to_go_through_a_scalar_or_past_an_array() -> None:
    values = fresh()
    result = apply(values, "inventory", "set", 1, 0, "name", "x")
    assert result == Skipped(
        "[inventory.0.name.x: set 1]", "cannot go into string 'inventory.0.name' with 'x'"
    )
    result = apply(values, "inventory", "set", 1, 7, "x")
    assert result == Skipped(
        "[inventory.7.x: set 1]", "index 7 is out of range for array 'inventory' (2 items)"
    )
    result = apply(values, "gold", "set", 1, "x")
    assert result == Skipped(
        "[gold.x: set 1]", "'gold' is a number variable; dot paths need a json variable"
    )


def test_insert_puts_an_item_into_an_array_at_an_index() -> None:
    values = {"inventory": ["a", "c"]}
    assert apply(values, "inventory", "insert", "b", 1) == Change("inventory", (1,), None, "b")
    assert apply(values, "inventory", "insert", "d", "-") == Change("inventory", (3,), None, "d")
    assert values["inventory"] == ["a", "b", "c", "d"]


def test_apply_effects_returns_changes_and_skips_in_order() -> None:
    values = fresh()
    effects = [
        Effect("gold", (), "add", 5, "[gold: +5]"),
        Effect("gold", (), "append", "x", "[gold: append x]"),
        Effect("gold", (), "add", 0, "[gold: +0]"),
        Effect("health", (), "subtract", 15, "[health: -15]"),
    ]
    changes, skipped = apply_effects(WORLD, values, effects)
    assert changes == [Change("gold", (), 10, 15), Change("health", (), 100, 85)]
    assert skipped == [
        Skipped("[gold: append x]", "append does not apply to number variable 'gold'")
    ]
    assert [c.to_dict() for c in changes][1] == {
        "variableId": "health",
        "path": [],
        "old": 100,
        "new": 85,
    }
    assert skipped[0].to_dict() == {
        "directive": "[gold: append x]",
        "reason": "append does not apply to number variable 'gold'",
    }
    assert effects[0].to_dict() == {
        "variableId": "gold",
        "path": [],
        "operation": "add",
        "value": 5,
    }


def test_records_are_frozen() -> None:
    change = Change("gold", (), 1, 2)
    with pytest.raises(AttributeError):
        change.new = 3  # type: ignore[misc]


def test_many_pushes_and_writes_touch_only_one_slot_each() -> None:
    # Linearity without timing: each push leaves the same array object in place and each
    # change carries only the element, never a copy of the growing array.
    values: dict[str, Any] = {"inventory": []}
    array = values["inventory"]
    effects = [Effect("inventory", (), "push", {"durability": 5})] * 300
    effects += [Effect("inventory", (k, "durability"), "subtract", 1) for k in range(300)]
    changes, skipped = apply_effects(WORLD, values, effects)
    assert skipped == [] and len(changes) == 600
    assert values["inventory"] is array
    assert all(c.new == {"durability": 5} for c in changes[:300])
    assert changes[599] == Change("inventory", (299, "durability"), 5, 4)


# --- properties --------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
operations = st.sampled_from(
    [
        "set",
        "add",
        "subtract",
        "multiply",
        "toggle",
        "append",
        "merge",
        "push",
        "delete",
        "insert",
        "bogus",
    ]
)
targets = st.sampled_from([v.id for v in WORLD.variables] + ["ghost"])
paths = st.lists(st.sampled_from(["0", "1", "a", "-", 0, 2, "name"]), max_size=3)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(targets, operations, json_values, paths), max_size=8))
def test_operations_never_raise_and_a_skip_changes_nothing(
    steps: list[tuple[str, str, Any, list[Any]]],
) -> None:
    values = fresh()
    for target, op, value, path in steps:
        before = copy_value(values)
        result = apply_operation(WORLD, values, target, op, value, path)
        if result is None or isinstance(result, Skipped):
            assert same_value(values, before)
        else:
            assert isinstance(result, Change)
            assert not same_value(values, before)
