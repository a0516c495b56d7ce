"""The fast paths of reply parsing give what the general readings give (issue 14, section 3).

Each fast path has a slower reference that defines it: the plain-form body regex, the
piece-by-piece `clean_text`, and `apply_operation` one effect at a time. Hypothesis compares them
over inputs built from the characters and shapes that make directives tricky.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.directive_bodies import _OPS
from engine.directive_extractor import _BRACKETS
from engine.directive_syntax import MAX_HEAD
from engine.directive_text import clean_pieces
from engine.directives import parse_reply
from engine.state import Effect, apply_effects, apply_operation, copy_value, name_index
from engine.text_tidy import clean_text
from engine.world import WorldDefinition, load_world

# The scanner as it was written before the unrolled, possessive body (the reference reading).
PLAIN_BRACKETS = re.compile(
    rf"\[(?:([^\[\]:\n]{{1,{MAX_HEAD}}}):"
    rf'(?:((?:[^\[\]{{}}"\n]|"(?:[^"\\\n]|\\.)*")*)\]'
    rf"|[ \t]*(?:((?i:{_OPS}))[ \t]+)?(?=[{{\[])))?"
)

TRICKY = st.text(alphabet='[]{}":\\\n\t -+*.,0123456789abhpsetgold<>/', max_size=60)


def make_world() -> WorldDefinition:
    return load_world(
        {
            "name": "Fast paths",
            "variables": [
                {"id": "hp", "name": "Hit Points", "type": "number", "defaultValue": 5},
                {"id": "gold", "type": "number", "defaultValue": 0, "min": -3, "max": 50},
                {"id": "ratio", "type": "number", "defaultValue": 1, "min": 0.5, "max": 2.5},
                {"id": "mood", "type": "string", "defaultValue": "calm"},
                {"id": "flag", "type": "boolean", "defaultValue": False},
                {"id": "bag", "type": "json", "defaultValue": [{"n": 1}]},
                {"id": "npcs", "type": "json", "defaultValue": {"a": {"t": 1, "s": "x"}}},
                {"id": "blob", "type": "json", "defaultValue": None},
            ],
            "audioTracks": [{"id": "bgm-tavern"}],
        }
    )


WORLD = make_world()


@settings(max_examples=400, deadline=None)
@given(TRICKY)
def test_the_unrolled_body_scanner_reads_every_bracket_as_the_plain_form(text: str) -> None:
    fast = [(m.span(), m.groups()) for m in _BRACKETS.finditer(text)]
    plain = [(m.span(), m.groups()) for m in PLAIN_BRACKETS.finditer(text)]
    assert fast == plain


def test_the_unrolled_body_scanner_handles_escapes_and_unclosed_strings() -> None:
    for text in [
        '[log: append "a\\"]b"]',
        '[log: "x\\\\"] tail]',
        '[log: "open]',
        '[log: "a" b "c"]',
        '[log: "\\\n"]',
        "[" + "h" * (MAX_HEAD + 5) + ": 1]",
    ]:
        fast = [(m.span(), m.groups()) for m in _BRACKETS.finditer(text)]
        assert fast == [(m.span(), m.groups()) for m in PLAIN_BRACKETS.finditer(text)], text


PIECES = st.lists(st.text(alphabet=" \t\n\u3000.,。)ab\r", max_size=8), min_size=1, max_size=12)


@settings(max_examples=400, deadline=None)
@given(PIECES)
def test_the_remembered_gaps_tidy_as_the_piece_by_piece_reading(pieces: list[str]) -> None:
    assert clean_pieces(pieces) == clean_text(pieces)


def test_a_gap_before_a_closing_mark_is_remembered_apart_from_the_plain_one() -> None:
    pieces = ["You find gold ", ". And more ", " then ", "\nnext"]
    assert clean_pieces(pieces) == clean_text(pieces) == "You find gold. And more then\nnext"


SCALARS = st.one_of(
    st.integers(-60, 60),
    st.floats(-3, 3, allow_nan=False),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "calm", "5", "true", "off", "x"]),
)
VALUES = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=2),
    st.dictionaries(st.sampled_from(["t", "s", "n"]), SCALARS, max_size=2),
)
OPERATIONS = st.sampled_from(
    [
        *("set", "add", "subtract", "multiply", "toggle", "append", "merge", "push", "delete"),
        *("insert", "ADD", "+", "replace", "bogus"),
    ]
)
PATHS = st.lists(st.sampled_from(["a", "t", "s", "n", "b", 0, 1, 2, "0", "-"]), max_size=3)
VARIABLES = ["hp", "gold", "ratio", "mood", "flag", "bag", "npcs", "blob", "nope"]
# Each variable mostly gets the operations its fast path reads, so Hypothesis reaches them often.
LIKELY = {
    "hp": ["add", "subtract", "set", "multiply"],
    "gold": ["add", "subtract", "set"],
    "ratio": ["add", "set"],
    "mood": ["set", "append"],
    "flag": ["set", "toggle"],
    "bag": ["push", "set", "add", "subtract"],
    "npcs": ["merge", "set", "add", "subtract"],
    "blob": ["push", "merge"],
    "nope": ["set"],
}


SLOTS = {"bag": [(0, "n"), (1,), (), (0,)], "npcs": [("a", "t"), ("a", "s"), ("t",), ()]}


@st.composite
def effects(draw: st.DrawFn) -> Effect:
    variable = draw(st.sampled_from(VARIABLES))
    operation = draw(st.one_of(st.sampled_from(LIKELY[variable]), OPERATIONS))
    value = draw(st.one_of(st.integers(-9, 9), st.sampled_from(["", "ab", "x"]), VALUES))
    slots = SLOTS.get(variable, [()])
    path = draw(
        st.one_of(st.sampled_from(slots), PATHS) if variable in SLOTS else st.just([]) | PATHS
    )
    return Effect(variable, tuple(path), operation, value, "")


STATES = st.fixed_dictionaries(
    {
        "hp": st.one_of(
            st.integers(-5, 99), st.floats(-2, 2, allow_nan=False), st.text(max_size=2)
        ),
        "gold": st.integers(-9, 60),
        "ratio": st.one_of(st.integers(0, 3), st.floats(0, 3)),
        "mood": st.one_of(st.text(max_size=3), st.integers(0, 3)),
        "flag": st.one_of(st.booleans(), st.integers(0, 1)),
        "bag": st.one_of(st.lists(st.fixed_dictionaries({"n": SCALARS}), max_size=3), VALUES),
        "npcs": st.one_of(
            st.fixed_dictionaries({"a": st.fixed_dictionaries({"t": SCALARS, "s": SCALARS})}),
            st.dictionaries(st.sampled_from(["a", "b", "t"]), VALUES),
            VALUES,
        ),
    },
    optional={"blob": VALUES},
)


def containers(value: Any) -> list[int]:
    """The ids of every dict and list inside ``value``, to catch a value stored without a copy."""
    if isinstance(value, dict):
        return [id(value), *(i for item in value.values() for i in containers(item))]
    if isinstance(value, list):
        return [id(value), *(i for item in value for i in containers(item))]
    return []


def one_at_a_time(values: dict[str, Any], effects: list[Effect]) -> tuple[list[Any], list[Any]]:
    changes, skipped = [], []
    for effect in effects:
        result = apply_operation(
            WORLD, values, effect.variable_id, effect.operation, effect.value, effect.path
        )
        if result is not None:
            (skipped if hasattr(result, "reason") else changes).append(result)
    return changes, skipped


@settings(max_examples=600, deadline=None)
@given(STATES, st.lists(effects(), max_size=8))
def test_effects_applied_in_bulk_change_what_one_at_a_time_changes(
    state: dict[str, Any], effects: list[Effect]
) -> None:
    bulk_values, single_values = copy_value(state), copy_value(state)
    bulk = apply_effects(WORLD, bulk_values, effects)
    single = one_at_a_time(single_values, effects)
    # repr tells 1 from 1.0 and True, which == does not
    assert repr(bulk) == repr(single)
    assert repr(bulk_values) == repr(single_values)
    assert not set(containers(bulk_values)) & {i for e in effects for i in containers(e.value)}


def test_a_clamped_float_bound_and_a_missing_slot_take_the_general_reading() -> None:
    effects = [
        Effect("ratio", (), "add", 7),
        Effect("npcs", ("b", "c"), "add", 2),
        Effect("bag", (0, "n"), "subtract", 4),
        Effect("bag", (), "push", {"n": [1]}),
        Effect("npcs", (), "merge", {"a": 1, "z": [2]}),
        Effect("flag", (), "set", 1),
        Effect("mood", (), "append", 3),
    ]
    bulk_values = {"ratio": 1, "npcs": {"a": {}}, "bag": [{"n": 1}], "flag": False, "mood": ""}
    single_values = copy_value(bulk_values)
    assert repr(apply_effects(WORLD, bulk_values, effects)) == repr(
        one_at_a_time(single_values, effects)
    )
    assert bulk_values == single_values
    assert bulk_values["ratio"] == 2.5
    assert bulk_values["bag"][1] == {"n": [1]}
    assert bulk_values["bag"][1] is not effects[3].value


DIRECTIVES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                *("[hp: -5]", "[gold: +50]", "[Hit Points: set 3]", "[mood: happy]"),
                *("[flag: toggle]", "[npcs.a.t: +1]", '[bag: push {"n": 2}]', "[x: 1]"),
                *("[audio: bgm-tavern play]", "<think>", "</think>", "[Note]"),
                *('[npcs: merge {"a": {"t": 9}}]', '[bag: push [1, "]"]]', '[blob: {"k": [1]}]'),
                *('[bag.0: merge {"n": 7}]', '[blob: {"k": 1', '[npcs.a.b: set {"t": 2}]'),
                '<UpdateVariable target="npcs"><JSONPatch>[{"op": "delta", "path": "/a/t",',
                ' "value": 2}]</JSONPatch></UpdateVariable>',
            ]
        ),
        TRICKY,
    ),
    max_size=10,
)


@settings(max_examples=300, deadline=None)
@given(DIRECTIVES)
def test_a_reply_reads_the_same_with_the_memo_of_directives_warm_or_cold(parts: list[str]) -> None:
    reply = " ".join(parts)
    name_index(WORLD).memo.clear()
    cold = parse_reply(WORLD, reply)
    warm = parse_reply(WORLD, reply)
    assert repr(cold) == repr(warm)


def test_a_remembered_json_directive_keeps_its_value_as_the_reply_wrote_it() -> None:
    reply = '[bag: push {"n": 1}] [bag.1.n: +1] [bag: push {"n": 1}] [blob: {"k": [1]}]'
    name_index(WORLD).memo.clear()
    cold = parse_reply(WORLD, reply)
    warm = parse_reply(WORLD, reply)  # the JSON directives now come from the memo
    assert cold.state["bag"] == warm.state["bag"] == [{"n": 1}, {"n": 2}, {"n": 1}]
    assert cold.state["blob"] == warm.state["blob"]
    assert [effect.value for effect in warm.effects[:3]] == [{"n": 1}, {"n": 1}, {"k": [1]}]
    assert warm.effects[0] is cold.effects[0]  # one immutable effect, read once


SLOT_EFFECTS = st.builds(
    lambda variable_path, operation, value: Effect(*variable_path, operation, value, ""),
    st.sampled_from(
        [
            ("npcs", ("a", "t")),
            ("npcs", ("a", "s")),
            ("bag", (0, "n")),
            ("bag", (1, "n")),
            ("npcs", ("a", "x")),
            ("bag", (0,)),
            ("bag", (5, "n")),
            ("npcs", ("a", 0)),
        ]
    ),
    st.sampled_from(["set", "add", "subtract", "multiply", "toggle", "append", "insert"]),
    st.one_of(st.integers(-9, 9), st.sampled_from(["", "ab", True, None, 1.5, [1], {"k": 2}])),
)
SLOT_STATES = st.fixed_dictionaries(
    {
        "npcs": st.fixed_dictionaries(
            {"a": st.fixed_dictionaries({"t": st.integers(-9, 9) | SCALARS, "s": SCALARS})}
        ),
        "bag": st.lists(st.fixed_dictionaries({"n": st.integers(-9, 9) | SCALARS}), max_size=3),
    }
)


@settings(max_examples=400, deadline=None)
@given(SLOT_STATES, st.lists(SLOT_EFFECTS, min_size=1, max_size=6))
def test_steps_and_sets_at_existing_json_slots_change_what_one_at_a_time_changes(
    state: dict[str, Any], effects: list[Effect]
) -> None:
    bulk_values, single_values = copy_value(state), copy_value(state)
    bulk = apply_effects(WORLD, bulk_values, effects)
    assert repr(bulk) == repr(one_at_a_time(single_values, effects))
    assert repr(bulk_values) == repr(single_values)
    assert not set(containers(bulk_values)) & {i for e in effects for i in containers(e.value)}
