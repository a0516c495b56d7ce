"""Macros of seeds 000 and 004: every built-in, variable fallback, literal leftovers."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from engine import macros
from engine.macros import MacroContext, expand_macros, format_duration, roll_dice
from engine.session import Message, Persona
from engine.world import WorldDefinition, load_world

NOW = datetime(2026, 5, 13, 14, 30, 5, tzinfo=UTC)
KAI = Persona("Kai", "Tall, scar over one eye", "Wry and curious", "Raised by smugglers")


def make_world(**extra: Any) -> WorldDefinition:
    data: dict[str, Any] = {
        "name": "Moonlit Inn",
        "entries": [
            {"id": "luna", "name": "Luna", "role": "character", "content": "A bard."},
        ],
        "variables": [
            {"id": "mood", "type": "string", "defaultValue": "calm"},
            {"id": "player-health", "type": "number", "defaultValue": 100.0},
            {"id": "gold", "type": "number", "defaultValue": 2.5},
            {"id": "has-key", "type": "boolean", "defaultValue": False},
            {"id": "inventory", "type": "json", "defaultValue": [{"name": "Sword", "dmg": 10.0}]},
            {"id": "model", "type": "string", "defaultValue": "not the builtin"},
        ],
        "settings": {"playerName": "Traveller"},
    }
    data.update(extra)
    return load_world(data)


def expand(text: str, state: dict[str, Any] | None = None, **context: Any) -> str:
    return expand_macros(make_world(), text, state, MacroContext(**context))


def test_it_renders_the_luna_and_kai_example_of_seed_000() -> None:
    text = (
        "{{char}} alza la vista cuando {{user}} entra en la habitación. La hora actual\n"
        "es {{time}}, y el clima afuera está {{random::clear::overcast::drizzling}}.\n"
        "El humor de {{char}} parece {{mood}} hoy."
    )
    context = MacroContext(
        persona=Persona("Kai"),
        now=datetime(2026, 5, 13, 14, 0, tzinfo=UTC),
        rng=random.Random(0),
    )
    out = expand_macros(make_world(), text, {"mood": "tense"}, context)
    assert out == (
        "Luna alza la vista cuando Kai entra en la habitación. La hora actual\n"
        "es 14:00, y el clima afuera está overcast.\n"
        "El humor de Luna parece tense hoy."
    )


def test_char_prefers_the_context_then_the_first_enabled_character_entry_then_the_world() -> None:
    assert expand("{{char}}", char="Aria") == "Aria"
    assert expand("{{char}}") == "Luna"
    world = make_world(
        entries=[
            {"id": "old", "name": "Mira", "role": "character", "enabled": False},
            {"id": "new", "name": "Sable", "role": "character"},
        ]
    )
    assert expand_macros(world, "{{char}}") == "Sable"
    assert expand_macros(make_world(entries=[]), "{{char}}") == "Moonlit Inn"


def test_user_follows_the_persona_then_the_context_user_then_player_name() -> None:
    assert expand("{{user}}", persona=KAI, user="alice") == "Kai"
    assert expand("{{user}}", user="alice") == "alice"
    assert expand("{{user}}") == "Traveller"


def test_persona_macros_render_each_field_and_all_four_labelled() -> None:
    text = "{{persona_name}}|{{persona_appearance}}|{{persona_personality}}|{{persona_backstory}}"
    assert expand(text, persona=KAI) == (
        "Kai|Tall, scar over one eye|Wry and curious|Raised by smugglers"
    )
    assert expand("{{persona}}", persona=KAI) == (
        "Name: Kai\n"
        "Appearance: Tall, scar over one eye\n"
        "Personality: Wry and curious\n"
        "Backstory: Raised by smugglers"
    )
    assert expand("{{persona}}", persona=Persona("Kai", backstory="Orphan")) == (
        "Name: Kai\nBackstory: Orphan"
    )
    assert expand("[{{persona}}][{{persona_name}}]") == "[][]"


def test_turn_count_and_model() -> None:
    assert expand("Turn {{turnCount}} on {{model}}", turn=42, model="gpt-4o") == (
        "Turn 42 on gpt-4o"
    )


def test_builtin_names_win_over_a_variable_of_the_same_id() -> None:
    assert expand("{{model}}", model="claude") == "claude"


def test_random_draws_from_the_injected_rng() -> None:
    rng = random.Random(5)
    expected = random.Random(5).choice(["a", "b", "c"])
    assert expand("{{random::a::b::c}}", rng=rng) == expected


def test_random_without_an_rng_is_seeded_by_seed_and_turn() -> None:
    first = [expand("{{random::a::b::c::d::e::f}}", seed=9, turn=t) for t in range(12)]
    again = [expand("{{random::a::b::c::d::e::f}}", seed=9, turn=t) for t in range(12)]
    assert first == again
    assert len(set(first)) > 1


def test_random_without_options_stays_literal() -> None:
    assert expand("{{random}}") == "{{random}}"


def test_pick_is_stable_within_a_turn_and_moves_between_turns() -> None:
    text = "{{pick::red::blue::green::amber::violet}}"
    same_turn = {expand(text, turn=3, rng=random.Random(i)) for i in range(10)}
    assert len(same_turn) == 1
    over_turns = {expand(text, turn=t) for t in range(20)}
    assert len(over_turns) > 1


def test_pick_does_not_depend_on_the_process_hash_seed() -> None:
    # crc32-based, so these values are the same in every process and on every machine
    assert expand("{{pick::red::blue::green}}", turn=3) == "red"
    assert expand("x {{pick::red::blue::green}}", turn=3) == "x green"


def test_pick_differs_by_position_in_the_text() -> None:
    text = " ".join(["{{pick::a::b::c::d::e::f::g::h}}"] * 8)
    assert len(set(expand(text, turn=1).split())) > 1


def test_roll_sums_dice_from_the_rng_and_applies_the_modifier() -> None:
    reference = random.Random(3)
    expected = reference.randint(1, 6) + reference.randint(1, 6) + 3
    assert expand("{{roll::2d6+3}}", rng=random.Random(3)) == str(expected)
    reference = random.Random(3)
    assert expand("{{roll::1d20-2}}", rng=random.Random(3)) == str(reference.randint(1, 20) - 2)


@pytest.mark.parametrize(
    ("spec", "low", "high"),
    [("1d20", 1, 20), ("d20", 1, 20), ("20", 1, 20), ("3d4", 3, 12), ("2d6-1", 1, 11)],
)
def test_roll_accepts_every_spec_form(spec: str, low: int, high: int) -> None:
    for seed in range(30):
        total = roll_dice(spec, random.Random(seed))
        assert total is not None
        assert low <= total <= high


@pytest.mark.parametrize("spec", ["abc", "0d6", "2d0", "2d", "1001d6", "2d6+", "2x6"])
def test_a_bad_roll_spec_stays_literal(spec: str) -> None:
    assert expand(f"{{{{roll::{spec}}}}}") == f"{{{{roll::{spec}}}}}"


def test_time_macros_render_the_context_clock() -> None:
    text = "{{time}}|{{date}}|{{weekday}}|{{isodate}}|{{isotime}}"
    assert expand(text, now=NOW) == "14:30|May 13, 2026|Wednesday|2026-05-13|14:30:05"


def test_time_macros_stay_literal_without_a_clock() -> None:
    text = "{{time}} {{date}} {{weekday}} {{isodate}} {{isotime}} {{idle}}"
    assert expand(text) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 seconds"),
        (1, "1 second"),
        (59.9, "59 seconds"),
        (300, "5 minutes"),
        (61, "1 minute"),
        (7200, "2 hours"),
        (86400 * 3 + 5, "3 days"),
    ],
)
def test_idle_is_human_readable(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text
    assert expand("{{idle}}", idle_seconds=seconds) == text


def test_last_message_macros_read_the_context_messages() -> None:
    messages = [
        Message("assistant", "Welcome."),
        Message("user", "A drink, please."),
        Message("assistant", "Coming right up."),
    ]
    text = "{{lastMessage}}|{{lastUserMessage}}|{{lastCharMessage}}"
    assert expand(text, messages=messages) == "Coming right up.|A drink, please.|Coming right up."
    assert expand(text) == "||"


def test_comments_vanish_even_across_lines() -> None:
    assert expand("a{{// note to self}}b{{//\nmulti\nline}}c") == "abc"


def test_trim_removes_the_whitespace_around_it() -> None:
    assert expand("Hello  \n{{trim}}\n  world") == "Helloworld"
    assert expand("{{char}}\n\n{{trim}}, bard") == "Luna, bard"


def test_variable_fallback_renders_state_then_default() -> None:
    assert expand("{{mood}}") == "calm"
    assert expand("{{mood}}", {"mood": "suspicious"}) == "suspicious"
    assert expand("{{player-health}}") == "100"
    assert expand("{{player-health}}", {"player-health": 42.5}) == "42.5"
    assert expand("{{gold}}") == "2.5"
    assert expand("{{has-key}}|{{has-key}}", {"has-key": True}) == "true|true"
    assert expand("{{has-key}}") == "false"


def test_json_variables_render_as_compact_json() -> None:
    assert expand("{{inventory}}") == '[{"name":"Sword","dmg":10}]'
    assert expand("{{inventory}}", {"inventory": {"a": [1, 2.0], "b": "é"}}) == (
        '{"a":[1,2],"b":"é"}'
    )


def test_unknown_macros_stay_literal() -> None:
    assert expand("{{unknown}} and {{also::unknown}} and {{}}") == (
        "{{unknown}} and {{also::unknown}} and {{}}"
    )


def test_a_failing_macro_stays_literal(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(env: macros.MacroEnv, args: list[str], offset: int) -> str | None:
        raise RuntimeError("boom")

    monkeypatch.setitem(macros.MACROS, "broken", broken)
    assert expand("x {{broken}} {{char}}") == "x {{broken}} Luna"


def test_names_are_case_insensitive_and_spaces_are_ignored() -> None:
    assert expand("{{CHAR}} {{ user }} {{TurnCount}}", turn=2) == "Luna Traveller 2"


def test_macro_output_is_never_expanded_again() -> None:
    assert expand("{{mood}}", {"mood": "{{char}}"}) == "{{char}}"
    messages = [Message("user", "{{roll::1d6}}")]
    assert expand("{{lastMessage}}", messages=messages) == "{{roll::1d6}}"


def test_extra_braces_around_a_macro_are_kept() -> None:
    assert expand("{{{char}}}") == "{Luna}"
    assert expand('{"a": {"b": 1}}') == '{"a": {"b": 1}}'


def test_text_without_macros_is_returned_unchanged() -> None:
    text = "No macros here. {single} braces } {"
    assert expand(text) == text


def test_context_from_dict_reads_the_cli_json() -> None:
    context = MacroContext.from_dict(
        {
            "turn": 7,
            "char": "Luna",
            "user": "alice",
            "persona": {"name": "Kai", "appearance": "tall"},
            "now": "2026-05-13T14:30:00Z",
            "seed": 4,
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "hi"}],
            "idle_seconds": 300,
        }
    )
    assert context.turn == 7
    assert context.char == "Luna"
    assert context.user == "alice"
    assert context.persona == Persona("Kai", "tall")
    assert context.now == datetime(2026, 5, 13, 14, 30, tzinfo=UTC)
    assert context.seed == 4
    assert context.model == "gpt-4o"
    assert context.messages == [Message("user", "hi")]
    assert context.idle_seconds == 300.0


def test_context_from_dict_ignores_unusable_fields() -> None:
    context = MacroContext.from_dict({"now": "yesterday", "turn": "x", "persona": "Kai"})
    assert context.now is None
    assert context.turn == 0
    assert context.persona is None
