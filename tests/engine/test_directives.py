"""Directives in the AI's reply: every example of seeds 000, 002 and 004, the six-step pipeline,
and the edge cases (seed 000 "Cómo procesa el motor la salida de la IA")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.directives import AudioCue, StreamFilter, extract_directives, parse_reply
from engine.state import Change, Effect, Skipped
from engine.world import WorldDefinition, load_world

TRACKS = [
    "track-id",
    "next-track",
    "bgm-tavern",
    "sfx-sword",
    "bgm-battle",
    "ambient-rain",
    "sfx-magic",
    "bgm-ambient",
]


def make_world() -> WorldDefinition:
    number = "number"
    return load_world(
        {
            "name": "Directives",
            "variables": [
                {
                    "id": "health",
                    "name": "Health",
                    "type": number,
                    "defaultValue": 100,
                    "min": 0,
                    "max": 100,
                },
                {"id": "gold", "type": number, "defaultValue": 0},
                {"id": "damage", "type": number, "defaultValue": 10},
                {"id": "player-hp", "name": "Player HP", "type": number, "defaultValue": 50},
                {"id": "enemy-hp", "type": number, "defaultValue": 60},
                {"id": "aria-trust", "type": number, "defaultValue": 20, "min": 0, "max": 100},
                {"id": "npc-2-trust", "type": number, "defaultValue": 1},
                {"id": "hp-cn", "name": "生命值", "type": number, "defaultValue": 30},
                {"id": "location", "type": "string", "defaultValue": "tavern"},
                {"id": "mood", "type": "string", "defaultValue": "calm"},
                {"id": "notes", "type": "string", "defaultValue": "Day 1."},
                {"id": "log", "type": "string", "defaultValue": "Entered the cave"},
                {"id": "has-key", "type": "boolean", "defaultValue": False},
                {"id": "met-elder", "type": "boolean", "defaultValue": False},
                {"id": "quest-active", "type": "boolean", "defaultValue": True},
                {
                    "id": "stats",
                    "name": "Player Stats",
                    "type": "json",
                    "defaultValue": {"level": 1, "health": 10},
                },
                {
                    "id": "inventory",
                    "type": "json",
                    "defaultValue": [
                        {"name": "Dagger", "durability": 3},
                        {"name": "Shield", "durability": 9},
                        {"name": "Rope", "durability": 1},
                    ],
                },
                {
                    "id": "config",
                    "type": "json",
                    "defaultValue": {"old-field": 1, "deprecated-key": 2, "keep": 3},
                },
                {"id": "npcs", "type": "json"},
                {"id": "quest-log", "type": "json", "defaultValue": []},
                {"id": "relationships", "type": "json"},
                {"id": "game-state", "type": "json"},
                {
                    "id": "allies",
                    "type": "json",
                    "defaultValue": [
                        {"name": "Bram", "class": "fighter", "trust": 50},
                        {"name": "Ysolde", "class": "mage", "trust": 40},
                    ],
                },
            ],
            "audioTracks": [{"id": track} for track in TRACKS],
        }
    )


WORLD = make_world()


def run(reply: str, **state: Any) -> Any:
    return parse_reply(WORLD, reply, {**WORLD.default_state(), **state})


# --- every directive example of the seeds ------------------------------------------------

SEED_EXAMPLES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # seed 000 "Las nueve operaciones"
    ('[location: set "forest"]', {}, {"location": "forest"}),
    ("[gold: +50]", {}, {"gold": 50}),
    ("[health: -15]", {}, {"health": 85}),
    ("[damage: *2]", {}, {"damage": 20}),
    ("[has-key: toggle]", {}, {"has-key": True}),
    ('[log: append ", found key"]', {}, {"log": "Entered the cave, found key"}),
    ('[stats: merge {"level": 2}]', {}, {"stats": {"level": 2, "health": 10}}),
    ('[inventory: push {"name": "Sword"}]', {"inventory": []}, {"inventory": [{"name": "Sword"}]}),
    ('[config: delete "old-field"]', {}, {"config": {"deprecated-key": 2, "keep": 3}}),
    ("[inventory: delete 0]", {"inventory": ["a", "b"]}, {"inventory": ["b"]}),
    # seed 000 "Reglas de sintaxis de valores"
    ("[gold: set 10]", {}, {"gold": 10}),
    ("[gold: set 3.5]", {}, {"gold": 3.5}),
    ("[gold: set -7]", {}, {"gold": -7}),
    ('[location: set "magic sword"]', {}, {"location": "magic sword"}),
    ("[has-key: set true]", {}, {"has-key": True}),
    ("[quest-active: set false]", {}, {"quest-active": False}),
    ('[stats: set {"level": 2}]', {}, {"stats": {"level": 2}}),
    ("[inventory: set [1, 2, 3]]", {}, {"inventory": [1, 2, 3]}),
    # seed 000 "La trampa de la abreviatura"
    ("[health: -10]", {"health": 50}, {"health": 40}),
    ("[health: +10]", {"health": 50}, {"health": 60}),
    ("[health: *2]", {"health": 30}, {"health": 60}),
    ("[health: 10]", {"health": 50}, {"health": 10}),
    ("[health: 50]", {"health": 20}, {"health": 50}),
    ("[health: set -10]", {"health": 50}, {"health": 0}),  # clamped to min 0
    ("[gold: set -10]", {}, {"gold": -10}),
    # seed 000 "Nombrado: ID o nombre visible"
    ("[player-hp: -5]", {}, {"player-hp": 45}),
    ("[Player HP: -5]", {}, {"player-hp": 45}),
    # seed 000 "Rutas anidadas para Variables JSON"
    ("[relationships.aria.trust: +10]", {}, {"relationships": {"aria": {"trust": 10}}}),
    (
        "[game-state.factions.ember-court.affinity: set 75]",
        {},
        {"game-state": {"factions": {"ember-court": {"affinity": 75}}}},
    ),
    (
        "[inventory.0.durability: -1]",
        {},
        {
            "inventory": [
                {"name": "Dagger", "durability": 2},
                {"name": "Shield", "durability": 9},
                {"name": "Rope", "durability": 1},
            ]
        },
    ),
    # seed 000 "Por qué importa el orden de análisis"
    (
        '[stats: merge {"health": 50, "mana": 30}]',
        {},
        {"stats": {"level": 1, "health": 50, "mana": 30}},
    ),
    # seed 000 "Patrones que funcionan"
    ("[health: -8]", {}, {"health": 92}),
    ("[enemy-hp: -22]", {}, {"enemy-hp": 38}),
    ("[aria-trust: +5]", {}, {"aria-trust": 25}),
    # seed 002 / 004 "指令语法"
    ("[health: set 50]", {}, {"health": 50}),
    ("[health: +10]", {"health": 80}, {"health": 90}),
    ("[health: -15]", {"health": 80}, {"health": 65}),
    ("[health: *2]", {"health": 40}, {"health": 80}),
    ("[gold: 100]", {}, {"gold": 100}),
    ('[location: set "dark forest"]', {}, {"location": "dark forest"}),
    ('[mood: set "suspicious"]', {}, {"mood": "suspicious"}),
    ('[notes: append " Found a clue."]', {}, {"notes": "Day 1. Found a clue."}),
    ("[has-key: toggle]", {"has-key": True}, {"has-key": False}),
    ("[met-elder: set true]", {}, {"met-elder": True}),
    ("[quest-active: set false]", {}, {"quest-active": False}),
    (
        '[inventory: push {"name": "Iron Sword", "damage": 10}]',
        {"inventory": [{"name": "Potion"}]},
        {"inventory": [{"name": "Potion"}, {"name": "Iron Sword", "damage": 10}]},
    ),
    (
        "[inventory: delete 0]",
        {"inventory": [{"name": "Potion"}, {"name": "Bow"}]},
        {"inventory": [{"name": "Bow"}]},
    ),
    (
        '[inventory: set [{"name": "Potion", "qty": 3}]]',
        {},
        {"inventory": [{"name": "Potion", "qty": 3}]},
    ),
    ("[npcs.aria.affinity: +5]", {}, {"npcs": {"aria": {"affinity": 5}}}),
    (
        '[npcs.aria.mood: set "happy"]',
        {"npcs": {"aria": {"affinity": 5}}},
        {"npcs": {"aria": {"affinity": 5, "mood": "happy"}}},
    ),
    (
        '[npcs: merge {"aria": {"trust": 80}}]',
        {"npcs": {"bram": {}}},
        {"npcs": {"bram": {}, "aria": {"trust": 80}}},
    ),
    (
        '[quest-log: push {"id": "q1", "status": "active"}]',
        {},
        {"quest-log": [{"id": "q1", "status": "active"}]},
    ),
    ('[config: delete "deprecated-key"]', {}, {"config": {"old-field": 1, "keep": 3}}),
    (
        "[inventory.0.durability: -1]",
        {"inventory": [{"durability": 10}]},
        {"inventory": [{"durability": 9}]},
    ),
    # seed 002 "所有操作" table and behaviour-rules example
    ('[quest-log: push "item"]', {}, {"quest-log": ["item"]}),
    (
        "[allies.0.trust: +5]",
        {},
        {
            "allies": [
                {"name": "Bram", "class": "fighter", "trust": 55},
                {"name": "Ysolde", "class": "mage", "trust": 40},
            ]
        },
    ),
    ("[allies: delete 0]", {}, {"allies": [{"name": "Ysolde", "class": "mage", "trust": 40}]}),
    ("[gold: add 10]", {}, {"gold": 10}),
    ("[gold: subtract 5]", {}, {"gold": -5}),
    ("[damage: multiply 2]", {}, {"damage": 20}),
]


@pytest.mark.parametrize(("directive", "start", "expected"), SEED_EXAMPLES)
def test_seed_example_directive(
    directive: str, start: dict[str, Any], expected: dict[str, Any]
) -> None:
    result = run(f"The story goes on. {directive}", **start)
    assert result.text == "The story goes on."
    assert result.skipped == []
    for variable_id, value in expected.items():
        assert result.state[variable_id] == value
        assert type(result.state[variable_id]) is type(value)


def test_seed_000_goblin_example_applies_and_leaves_clean_narrative() -> None:
    reply = (
        "La garra del goblin te rasguña el antebrazo, trazando una línea ardiente de dolor.\n"
        "[health: -15]"
    )
    result = run(reply)
    assert result.text == (
        "La garra del goblin te rasguña el antebrazo, trazando una línea ardiente de dolor."
    )
    assert result.state["health"] == 85
    assert result.changes == [Change("health", (), 100, 85)]
    assert result.effects == [Effect("health", (), "subtract", 15, "[health: -15]")]


def test_seed_000_combat_pattern_two_paragraphs() -> None:
    reply = (
        "La daga del bandido te alcanza en las costillas: un corte\n"
        "superficial, pero quema. Retrocedes tambaleándote, manteniendo la guardia alta.\n"
        "[health: -8]\n\n"
        "Balanceas tu espadón en un arco amplio. El bandido intenta\n"
        "esquivarlo pero recibe la hoja en el hombro. Grita.\n"
        "[enemy-hp: -22]"
    )
    result = run(reply)
    assert result.text == (
        "La daga del bandido te alcanza en las costillas: un corte\n"
        "superficial, pero quema. Retrocedes tambaleándote, manteniendo la guardia alta.\n\n"
        "Balanceas tu espadón en un arco amplio. El bandido intenta\n"
        "esquivarlo pero recibe la hoja en el hombro. Grita."
    )
    assert (result.state["health"], result.state["enemy-hp"]) == (92, 38)


def test_seed_000_json_patch_block_with_target() -> None:
    reply = (
        "You drop the dagger.\n"
        '<UpdateVariable target="inventory">\n'
        "<JSONPatch>\n"
        "[\n"
        '{"op": "remove", "path": "/0"},\n'
        '{"op": "replace", "path": "/1/durability", "value": 5}\n'
        "]\n"
        "</JSONPatch>\n"
        "</UpdateVariable>"
    )
    result = run(reply)
    assert result.text == "You drop the dagger."
    assert result.state["inventory"] == [
        {"name": "Shield", "durability": 9},
        {"name": "Rope", "durability": 5},
    ]
    assert [e.operation for e in result.effects] == ["delete", "set"]


@pytest.mark.parametrize(
    ("operation", "start", "expected"),
    [
        ('{"op": "replace", "path": "/health", "value": 80}', {}, {"health": 80}),
        ('{"op": "delta", "path": "/gold", "value": -50}', {"gold": 70}, {"gold": 20}),
        (
            '{"op": "insert", "path": "/inventory/torch", "value": 1}',
            {"inventory": {"rope": 1}},
            {"inventory": {"rope": 1, "torch": 1}},
        ),
        (
            '{"op": "remove", "path": "/inventory/0"}',
            {"inventory": ["a", "b"]},
            {"inventory": ["b"]},
        ),
    ],
)
def test_seed_000_json_patch_operations_table(
    operation: str, start: dict[str, Any], expected: dict[str, Any]
) -> None:
    reply = f"Ok.\n<UpdateVariable><JSONPatch>[{operation}]</JSONPatch></UpdateVariable>"
    result = run(reply, **start)
    assert result.text == "Ok."
    assert result.skipped == []
    for variable_id, value in expected.items():
        assert result.state[variable_id] == value


AUDIO_EXAMPLES = [
    ("[audio: track-id play]", AudioCue("track-id", "play")),
    ("[audio: track-id stop]", AudioCue("track-id", "stop")),
    ("[audio: track-id crossfade 2.5]", AudioCue("track-id", "crossfade", 2.5)),
    ("[audio: track-id volume 0.5]", AudioCue("track-id", "volume", 0.5)),
    ("[audio: track-id play chain:next-track]", AudioCue("track-id", "play", None, "next-track")),
    ("[audio: bgm-tavern play]", AudioCue("bgm-tavern", "play")),
    ("[audio: sfx-sword play]", AudioCue("sfx-sword", "play")),
    ("[audio: bgm-tavern stop]", AudioCue("bgm-tavern", "stop")),
    ("[audio: bgm-battle crossfade 2.5]", AudioCue("bgm-battle", "crossfade", 2.5)),
    ("[audio: ambient-rain volume 0.3]", AudioCue("ambient-rain", "volume", 0.3)),
    (
        "[audio: sfx-magic play chain:bgm-ambient]",
        AudioCue("sfx-magic", "play", None, "bgm-ambient"),
    ),
]


@pytest.mark.parametrize(("directive", "cue"), AUDIO_EXAMPLES)
def test_seed_audio_directive(directive: str, cue: AudioCue) -> None:
    result = run(f"Music. {directive}")
    assert result.text == "Music."
    assert [(c.track_id, c.action, c.value, c.chain) for c in result.audio] == [
        (cue.track_id, cue.action, cue.value, cue.chain)
    ]
    assert result.audio[0].source == directive


def test_audio_cue_to_dict() -> None:
    assert AudioCue("bgm-battle", "crossfade", 2.5).to_dict() == {
        "trackId": "bgm-battle",
        "action": "crossfade",
        "value": 2.5,
        "chain": None,
    }


# --- the six steps -----------------------------------------------------------------------


def test_step_1_strips_thinking_tags_and_their_directives() -> None:
    reply = (
        "<thinking>The player is hurt. [health: -50]</thinking>\n\nYou rest. [health: +5]"
        "<think>hidden [gold: +999]</think> Done."
    )
    result = run(reply, health=50)
    assert result.text == "You rest. Done."
    assert result.state["health"] == 55
    assert result.state["gold"] == 0


def test_step_1_strips_an_unterminated_thinking_tag_to_the_end() -> None:
    result = run("Visible. <think>never closed [gold: +5]")
    assert result.text == "Visible."
    assert result.state["gold"] == 0


def test_thinking_tags_are_matched_case_insensitively() -> None:
    assert run("<THINKING>x</Thinking>Hello").text == "Hello"


def test_effects_follow_the_seed_order_patches_then_json_then_standard() -> None:
    reply = (
        '[gold: +1] [stats: merge {"level": 3}] '
        '<UpdateVariable target="gold"><JSONPatch>[{"op": "replace", "path": "", "value": 10}]'
        "</JSONPatch></UpdateVariable>"
    )
    result = run(reply)
    assert [(e.variable_id, e.operation) for e in result.effects] == [
        ("gold", "set"),
        ("stats", "merge"),
        ("gold", "add"),
    ]
    assert result.state["gold"] == 11


def test_step_6_collapses_blank_lines_and_tidies_removed_lines() -> None:
    reply = "First.   [gold: +1]\n[health: -1]\n\n\n\nSecond. He hits [health: -2] hard.\n\n\n"
    assert run(reply).text == "First.\n\nSecond. He hits hard."


def test_step_6_keeps_indentation_and_lines_without_directives() -> None:
    reply = "A\n    [gold: +1] indented\nB  \nC"
    assert run(reply).text == "A\n    indented\nB  \nC"


def test_directives_inline_mid_sentence_still_parse() -> None:
    result = run("You find[gold: +5] coins and[has-key: toggle]a key.")
    assert result.text == "You find coins anda key."
    assert (result.state["gold"], result.state["has-key"]) == (5, True)


# --- names, heads and paths --------------------------------------------------------------


def test_prose_brackets_stay_in_the_text() -> None:
    reply = "[Chapter 2]\n[Chapter 3: The Road]\n[Note: keep going] [a] [] [:] [ : x]"
    result = run(reply)
    assert result.text == reply
    assert result.effects == []


def test_an_unknown_variable_is_kept_and_reported() -> None:
    result = run("Cast. [mana: -5] [Spell Power: +1]")
    assert result.text == "Cast. [mana: -5] [Spell Power: +1]"
    assert result.skipped == [Skipped("[mana: -5]", "unknown variable 'mana'; left in the text")]


def test_display_names_with_spaces_and_case_resolve() -> None:
    result = run("[player hp: -5] [PLAYER HP: -5] [ Player HP : -5 ]")
    assert result.text == ""
    assert result.state["player-hp"] == 35


def test_unicode_cjk_display_name_and_path_keys() -> None:
    result = run("受伤了。[生命值: -5]\n[npcs.艾莉亚.好感: +5]")
    assert result.text == "受伤了。"
    assert result.state["hp-cn"] == 25
    assert result.state["npcs"] == {"艾莉亚": {"好感": 5}}


def test_ids_with_hyphens_and_digits_and_display_name_dot_paths() -> None:
    result = run("[npc-2-trust: +3] [Player Stats.level: +1]")
    assert result.state["npc-2-trust"] == 4
    assert result.state["stats"] == {"level": 2, "health": 10}


def test_operation_words_are_case_insensitive() -> None:
    result = run('[health: SET 5] [location: Set "x"] [has-key: TOGGLE]')
    assert (result.state["health"], result.state["location"], result.state["has-key"]) == (
        5,
        "x",
        True,
    )


def test_values_bare_text_quotes_and_escapes() -> None:
    result = run('[mood: happy and calm] [notes: append "say \\"hi\\""] [location: "cave"]')
    assert result.state["mood"] == "happy and calm"
    assert result.state["notes"] == 'Day 1.say "hi"'
    assert result.state["location"] == "cave"


def test_a_number_variable_refuses_text() -> None:
    result = run("[health: -5 hp] [gold: lots]")
    assert result.state["health"] == 100
    assert [s.reason for s in result.skipped] == [
        "'-5 hp' is not a number",
        "'lots' is not a number",
    ]


def test_delete_without_a_value_degrades_to_an_implicit_set_of_the_word() -> None:
    result = run("[location: delete] [health: delete] [inventory: delete]")
    assert result.text == ""
    assert result.state["location"] == "delete"
    assert result.state["inventory"] == "delete"
    assert result.state["health"] == 100
    assert result.skipped == [Skipped("[health: delete]", "'delete' is not a number")]


def test_delete_by_index_and_by_key() -> None:
    result = run('[inventory: delete 1] [config: delete "keep"] [config: delete old-field]')
    assert [i["name"] for i in result.state["inventory"]] == ["Dagger", "Rope"]
    assert result.state["config"] == {"deprecated-key": 2}


# --- JSON payloads -----------------------------------------------------------------------


def test_nested_json_with_colons_commas_and_brackets_inside_strings() -> None:
    reply = (
        'Loot. [inventory: push {"name": "Map: north, [old]", "tags": ["a]", "{b}"], '
        '"meta": {"x": [1, [2, 3]]}}] Done.'
    )
    result = run(reply, inventory=[])
    assert result.text == "Loot. Done."
    assert result.state["inventory"] == [
        {"name": "Map: north, [old]", "tags": ["a]", "{b}"], "meta": {"x": [1, [2, 3]]}}
    ]


def test_multiline_json_payload() -> None:
    reply = 'Ok.\n[stats: merge {\n  "level": 4,\n  "xp": 10\n}]\nNext.'
    result = run(reply)
    assert result.text == "Ok.\nNext."
    assert result.state["stats"] == {"level": 4, "health": 10, "xp": 10}


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ('[stats: merge {"level": 2]', "invalid JSON: Expecting ',' delimiter at column 12"),
        (
            "[stats: merge {level: 2}]",
            "invalid JSON: Expecting property name enclosed in double quotes at column 2",
        ),
        ('[stats: merge {"a": NaN}]', "invalid JSON: NaN is not valid JSON"),
        ("[gold: add]", "add needs a value"),
        ("[stats: merge]", "merge needs a value"),
        ("[gold:]", "the directive has no value"),
        ('[location: set "dark forest]', "malformed string (no closing quote)"),
        ("[audio: bgm-tavern]", "an audio directive needs a track id and an action"),
        (
            "[audio: bgm-tavern dance]",
            "unknown audio action 'dance' (play, stop, crossfade, volume)",
        ),
        ("[audio: bgm-tavern volume loud]", "volume needs a number, got 'loud'"),
        ("[npcs..x: 1]", "empty segment in the dot path"),
    ],
)
def test_malformed_directives_are_removed_and_skipped_with_the_reason(
    reply: str, reason: str
) -> None:
    result = run(f"Text. {reply}\nMore.")
    assert result.text == "Text.\nMore."
    assert result.effects == [] and result.audio == []
    assert result.skipped == [Skipped(reply, reason)]


def test_an_unterminated_directive_stays_in_the_text() -> None:
    result = run("Text [health: -5\nmore")
    assert result.text == "Text [health: -5\nmore"
    assert result.state["health"] == 100
    assert result.skipped == [
        Skipped("[health: -5", "unterminated directive (no closing ']'); left in the text")
    ]


def test_a_directive_cut_off_by_the_end_of_the_reply_is_dropped_and_reported() -> None:
    result = run("The blade bites. [health: -1")
    assert result.text == "The blade bites."
    assert result.state["health"] == 100
    assert result.skipped == [Skipped("[health: -1", "directive cut off by the end of the reply")]


def test_an_echoed_prompt_block_is_removed_from_the_text() -> None:
    result = run("Rain.\n<current-state>\nhealth: 3\n</current-state>\nThunder.</persona>")
    assert result.text == "Rain.\nThunder."
    assert result.state["health"] == 100


def test_volume_is_clamped_between_0_and_1() -> None:
    assert run("[audio: bgm-tavern volume 3]").audio[0].value == 1.0


# --- JSON Patch --------------------------------------------------------------------------


def test_patch_target_by_display_name_and_whole_target_path() -> None:
    reply = (
        '<UpdateVariable target="Player Stats"><JSONPatch>'
        '[{"op": "replace", "path": "", "value": {"level": 9}},'
        ' {"op": "delta", "path": "/level", "value": 1}]'
        "</JSONPatch></UpdateVariable>"
    )
    assert run(reply).state["stats"] == {"level": 10}


def test_patch_pointer_escapes_and_array_insert() -> None:
    reply = (
        "<UpdateVariable><JSONPatch>["
        '{"op": "insert", "path": "/config/a~1b", "value": 1},'
        '{"op": "insert", "path": "/config/c~0d", "value": 2},'
        '{"op": "insert", "path": "/quest-log/0", "value": "first"},'
        '{"op": "insert", "path": "/quest-log/-", "value": "last"},'
        '{"op": "insert", "path": "/quest-log/1", "value": "middle"}'
        "]</JSONPatch></UpdateVariable>"
    )
    result = run(reply)
    assert result.state["config"] == {
        "old-field": 1,
        "deprecated-key": 2,
        "keep": 3,
        "a/b": 1,
        "c~d": 2,
    }
    assert result.state["quest-log"] == ["first", "middle", "last"]


def test_patch_problems_are_skipped_and_the_block_removed() -> None:
    reply = (
        "A.\n<UpdateVariable><JSONPatch>["
        '{"op": "move", "path": "/gold"},'
        '{"op": "replace", "path": "/mana", "value": 1},'
        '{"op": "replace", "path": "/gold"},'
        '{"op": "remove", "path": "/gold"},'
        '"nonsense",'
        '{"op": "delta", "path": "/gold", "value": 5}'
        "]</JSONPatch></UpdateVariable>\nB."
    )
    result = run(reply)
    assert result.text == "A.\nB."
    assert result.state["gold"] == 5
    assert [s.reason for s in result.skipped] == [
        'unsupported patch operation "move" (replace, delta, insert, remove)',
        "unknown variable 'mana'",
        "replace needs a value",
        "remove needs a path inside the variable",
        "a patch operation must be an object",
    ]


def test_patch_with_unknown_target_or_bad_json_is_removed_and_skipped() -> None:
    result = run(
        'A <UpdateVariable target="nope"><JSONPatch>[]</JSONPatch></UpdateVariable> B '
        "<UpdateVariable><JSONPatch>[{</JSONPatch></UpdateVariable> C"
    )
    assert result.text == "A B C"
    assert [s.reason for s in result.skipped] == [
        "unknown target variable 'nope'",
        "invalid JSON patch: Expecting property name enclosed in double quotes at column 3",
    ]


def test_an_unterminated_patch_block_is_parsed_and_removed_to_the_end() -> None:
    result = run(
        'Hi. <UpdateVariable target="gold"><JSONPatch>[{"op": "delta", "path": "", '
        '"value": 3}]</JSONPatch>'
    )
    assert result.text == "Hi."
    assert result.state["gold"] == 3


# --- the state ---------------------------------------------------------------------------


def test_parse_reply_never_mutates_the_input_state_and_fills_defaults() -> None:
    state = {"inventory": [{"name": "Dagger", "durability": 3}], "unknown-extra": {"x": 1}}
    result = parse_reply(WORLD, "[inventory.0.durability: -1] [inventory: push 1]", state)
    assert state == {"inventory": [{"name": "Dagger", "durability": 3}], "unknown-extra": {"x": 1}}
    assert result.state["inventory"] == [{"name": "Dagger", "durability": 2}, 1]
    assert result.state["gold"] == 0
    assert result.state["unknown-extra"] == {"x": 1}
    assert result.state["unknown-extra"] is not state["unknown-extra"]


def test_parse_reply_without_state_starts_from_defaults() -> None:
    result = parse_reply(WORLD, "[gold: +5]")
    assert result.state == {**WORLD.default_state(), "gold": 5}


def test_extract_directives_applies_nothing() -> None:
    extraction = extract_directives(WORLD, "Hi [gold: +5] [audio: bgm-tavern play] [mana: 1]")
    assert extraction.text == "Hi [mana: 1]"
    assert extraction.effects == [Effect("gold", (), "add", 5, "[gold: +5]")]
    assert extraction.audio == [
        AudioCue("bgm-tavern", "play", None, None, "[audio: bgm-tavern play]")
    ]
    assert len(extraction.skipped) == 1


def test_repeated_directives_apply_each_time() -> None:
    assert run("[gold: +5] [gold: +5] [gold: +5]").state["gold"] == 15


def test_stream_filter_is_reexported() -> None:
    from engine import stream_filter

    assert StreamFilter is stream_filter.StreamFilter


# --- never raises ------------------------------------------------------------------------

SOUP = st.sampled_from(
    [
        "[",
        "]",
        "{",
        "}",
        ":",
        '"',
        "\\",
        "\n",
        " ",
        "\t",
        ",",
        "-",
        "+",
        "*",
        ".",
        "0",
        "12",
        "health",
        "Player HP",
        "npcs.aria",
        "inventory",
        "stats",
        "audio",
        "bgm-tavern",
        "play",
        "chain:",
        "push",
        "delete",
        "set",
        "merge",
        "toggle",
        "true",
        "null",
        "NaN",
        "生命值",
        "<think>",
        "</think>",
        "<thinking>",
        "<",
        ">",
        '<UpdateVariable target="stats">',
        "<UpdateVariable>",
        "<JSONPatch>",
        "</JSONPatch>",
        "</UpdateVariable>",
        '{"a": 1}',
        "[1, 2]",
        '"x"',
        "/0",
        '{"op": "remove", "path": "/0"}',
        "\x00",
        "\u3000",
    ]
)
soup = st.lists(SOUP | st.text(max_size=4), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.text() | soup)
def test_parse_reply_never_raises(reply: str) -> None:
    result = parse_reply(WORLD, reply)
    assert isinstance(result.text, str)
    assert result.text == result.text.strip()
    assert "\n\n\n" not in result.text


@pytest.mark.parametrize(
    ("reply", "text", "gold"),
    [
        # a bracket naming no variable is text, and what its quotes hide is read after all
        ('[foo: "[gold: +5]"] x', '[foo: ""] x', 5),
        ('[foo: "<think>"] hidden [gold: +5]', '[foo: "', 0),
        # a thinking block that ends inside a later bracket's quotes
        ('<think>[health: "</think>[gold: +5]"] end', '"] end', 5),
        # a JSON payload hides what its strings hold
        ('[inventory: push {"a": "[gold: +5] <think>"}] end', "end", 0),
        # a '[' inside a JSON value that names a variable is not a directive of its own
        ('[stats: merge {"x": ["[gold: +5]"]}] end', "end", 0),
    ],
)
def test_a_single_left_to_right_reading_decides_overlaps(reply: str, text: str, gold: int) -> None:
    result = run(reply)
    assert result.text == text
    assert result.state["gold"] == gold
    filt = StreamFilter(WORLD)
    shown = "".join(filt.feed(char) for char in reply) + filt.close()
    assert shown == text


def test_a_directive_left_open_does_not_swallow_the_next_one() -> None:
    result = run("Hit [health: -5 and [gold: +5] then.")
    assert result.text == "Hit [health: -5 and then."
    assert (result.state["health"], result.state["gold"]) == (100, 5)


def test_json_payloads_may_hold_brackets_that_are_not_heads() -> None:
    result = run('[stats: merge {"a": [1, [2]], "b": [{"c": "[d: e]"}], "f": ["g:h"]}]')
    assert result.text == ""
    assert result.state["stats"]["a"] == [1, [2]]
    assert result.state["stats"]["b"] == [{"c": "[d: e]"}]


def test_many_open_directives_are_each_reported_briefly() -> None:
    reply = "[stats: merge {" * 200
    result = run(reply)
    assert result.text == "[stats: merge {" * 199  # the last one the reply's end cut: dropped
    assert len(result.skipped) == 200
    assert all(len(s.source) <= 120 for s in result.skipped)


def test_an_undeclared_audio_track_is_still_queued_and_removed_from_the_text() -> None:
    result = run("Music swells. [audio: nope play chain:other]")
    assert result.text == "Music swells."
    assert [cue.to_dict() for cue in result.audio] == [
        {"trackId": "nope", "action": "play", "value": None, "chain": "other"}
    ]
    assert result.skipped == []
