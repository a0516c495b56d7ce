"""Black-box conformance with seeds 000, 002 and 004, case by case, through ``python -m engine``.

Every case builds its world JSON in a temporary directory and runs the CLI as an outside tool
would: most in-process through ``engine.cli.main`` (fast), a handful as real subprocesses to pin
exit codes. Where a seed leaves a choice open, the comment says which reading is tested.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine import api
from engine.cli import main
from engine.session import ContextMessage, InjectedDirective, Message, Persona, SessionState

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    status: int
    out: str
    err: str

    def json(self) -> Any:
        assert self.status == 0, self.err
        return json.loads(self.out)


class Cli:
    """``python -m engine`` in-process, with its files written under ``tmp``."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.files = 0

    def file(self, data: Any, name: str = "") -> str:
        self.files += 1
        path = self.tmp / (name or f"f{self.files}.json")
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        return str(path)

    def run(self, *args: str, stdin: str = "") -> Run:
        out, err = io.StringIO(), io.StringIO()
        saved = sys.stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(list(args))
        finally:
            sys.stdin = saved
        return Run(status, out.getvalue(), err.getvalue())

    def parse(self, world: dict[str, Any], reply: str, state: dict[str, Any] | None = None) -> Any:
        args = ["parse", "--world", self.file(world)]
        if state is not None:
            args += ["--state", self.file(state)]
        return self.run(*args, stdin=reply).json()

    def expand(
        self,
        world: dict[str, Any],
        text: str,
        context: dict[str, Any] | None = None,
        state: dict[str, Any] | None = None,
    ) -> str:
        args = ["expand", "--world", self.file(world)]
        if context is not None:
            args += ["--context", self.file(context)]
        if state is not None:
            args += ["--state", self.file(state)]
        done = self.run(*args, stdin=text)
        assert done.status == 0, done.err
        return done.out

    def stream(self, world: dict[str, Any], chunks: list[str]) -> Any:
        return self.run("stream", "--world", self.file(world), stdin=json.dumps(chunks)).json()

    def prompt(
        self,
        world: dict[str, Any],
        chat: list[tuple[str, str]],
        state: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
    ) -> Any:
        chat_file = self.file([{"role": r, "content": c} for r, c in chat])
        args = ["prompt", "--world", self.file(world), "--chat", chat_file]
        if state is not None:
            args += ["--state", self.file(state)]
        if context is not None:
            args += ["--context", self.file(context)]
        return self.run(*args).json()

    def validate(self, world: Any) -> Run:
        return self.run("validate", "--world", self.file(world))


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


def subprocess_cli(*args: str, stdin: str = "") -> Run:
    done = subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=stdin.encode("utf-8"),
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


# A world with a variable for every example of seeds 000 and 002.
GAME: dict[str, Any] = {
    "name": "Seed Game",
    "variables": [
        {"id": "health", "name": "Health", "type": "number", "defaultValue": 100,
         "min": 0, "max": 100, "category": "stat"},
        {"id": "player-hp", "name": "Player HP", "type": "number", "defaultValue": 50,
         "min": 0, "max": 100},
        {"id": "enemy-hp", "type": "number", "defaultValue": 40, "min": 0},
        {"id": "gold", "type": "number", "defaultValue": 10},
        {"id": "damage", "type": "number", "defaultValue": 7},
        {"id": "aria-trust", "type": "number", "defaultValue": 20, "min": 0, "max": 100},
        {"id": "location", "type": "string", "defaultValue": "village"},
        {"id": "mood", "type": "string", "defaultValue": "calm"},
        {"id": "log", "type": "string", "defaultValue": "Entered the cave"},
        {"id": "notes", "type": "string", "defaultValue": "Day one."},
        {"id": "has-key", "type": "boolean", "defaultValue": False},
        {"id": "met-elder", "type": "boolean", "defaultValue": False},
        {"id": "quest-active", "type": "boolean", "defaultValue": True},
        {"id": "stats", "type": "json", "defaultValue": {"level": 1, "xp": 0}},
        {"id": "inventory", "type": "json", "defaultValue": [
            {"name": "Torch", "durability": 3},
            {"name": "Rope", "durability": 9},
            {"name": "Shield", "durability": 4},
        ]},
        {"id": "config", "type": "json", "defaultValue": {"old-field": 1, "deprecated-key": 2,
                                                           "keep": True}},
        {"id": "relationships", "type": "json", "defaultValue": {}},
        {"id": "game-state", "type": "json", "defaultValue": {"turn": 1}},
        {"id": "npcs", "type": "json", "defaultValue": {}},
        {"id": "quest-log", "type": "json", "defaultValue": []},
        {"id": "allies", "type": "json", "defaultValue": [
            {"name": "Bram", "class": "fighter", "trust": 50},
            {"name": "Cyra", "class": "mage", "trust": 30},
        ]},
    ],
    "audioTracks": [
        {"id": "bgm-tavern", "name": "Tavern Theme", "type": "bgm", "loop": True, "volume": 0.4},
        {"id": "bgm-battle", "type": "bgm"},
        {"id": "bgm-ambient", "type": "bgm"},
        {"id": "sfx-sword", "type": "sfx"},
        {"id": "sfx-magic", "type": "sfx"},
        {"id": "ambient-rain", "type": "ambient"},
    ],
}  # fmt: skip


def state_of(cli: Cli, reply: str, state: dict[str, Any] | None = None) -> dict[str, Any]:
    result = cli.parse(GAME, reply, state)
    assert result["skipped"] == [], result["skipped"]
    assert result["text"] == ""
    values: dict[str, Any] = result["state"]
    return values


# --- seed 000: the nine operations (table "Las nueve operaciones") -------------------------


@pytest.mark.parametrize(
    ("reply", "variable", "before", "after"),
    [
        ('[location: set "forest"]', "location", "village", "forest"),
        ("[location: forest]", "location", "village", "forest"),
        ("[gold: +50]", "gold", 10, 60),
        ("[gold: add 50]", "gold", 10, 60),
        ("[health: -15]", "health", 100, 85),
        ("[health: subtract 15]", "health", 100, 85),
        ("[damage: *2]", "damage", 7, 14),
        ("[damage: multiply 2]", "damage", 7, 14),
        ("[has-key: toggle]", "has-key", False, True),
        ('[log: append ", found key"]', "log", "Entered the cave", "Entered the cave, found key"),
        ('[stats: merge {"level": 2}]', "stats", {"level": 1, "xp": 0}, {"level": 2, "xp": 0}),
        (
            '[inventory: push {"name": "Sword"}]',
            "inventory",
            [{"name": "Torch"}],
            [{"name": "Torch"}, {"name": "Sword"}],
        ),
        (
            '[config: delete "old-field"]',
            "config",
            {"old-field": 1, "keep": True},
            {"keep": True},
        ),
        ("[inventory: delete 0]", "inventory", ["a", "b", "c"], ["b", "c"]),
    ],
)
def test_each_operation_of_the_table_does_what_the_seed_says(
    cli: Cli, reply: str, variable: str, before: Any, after: Any
) -> None:
    assert state_of(cli, reply, {variable: before})[variable] == after


def test_toggle_flips_true_to_false_too(cli: Cli) -> None:
    assert state_of(cli, "[has-key: toggle]", {"has-key": True})["has-key"] is False


def test_delete_without_a_value_degrades_to_an_implicit_set(cli: Cli) -> None:
    # Seed 000: "[var: delete] sin nada se degrada silenciosamente a un set implícito": the
    # body "delete" is then an implicit set of that word.
    result = cli.parse(GAME, "[config: delete]")
    assert result["text"] == ""
    assert result["state"]["config"] == "delete"
    assert result["effects"] == [
        {"variableId": "config", "path": [], "operation": "set", "value": "delete"}
    ]


# --- seed 000: value syntax and the shorthand trap ------------------------------------------


def test_value_syntax_numbers_strings_booleans_and_json(cli: Cli) -> None:
    values = state_of(
        cli,
        '[gold: 3.5] [damage: -7] [location: set "magic sword"] [met-elder: set true] '
        '[quest-active: set false] [quest-log: set [1, 2, 3]] [stats: set {"level": 2}]',
    )
    assert values["gold"] == 3.5
    assert values["damage"] == 0  # -7 is "subtract 7" (the shorthand trap), from 7
    assert values["location"] == "magic sword"
    assert values["met-elder"] is True
    assert values["quest-active"] is False
    assert values["quest-log"] == [1, 2, 3]
    assert values["stats"] == {"level": 2}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("[health: -10]", 40),  # subtract 10
        ("[health: +10]", 60),  # add 10
        ("[health: *2]", 100),  # multiply by 2
        ("[health: 10]", 10),  # SETS health to 10 (implicit set, not add)
        ("[health: 50]", 50),  # replaces the current value by 50
    ],
)
def test_the_shorthand_trap(cli: Cli, reply: str, expected: int) -> None:
    assert state_of(cli, reply, {"health": 50})["health"] == expected


def test_set_negative_is_explicit_and_then_clamped_to_min(cli: Cli) -> None:
    assert state_of(cli, "[health: set -10]")["health"] == 0
    assert state_of(cli, "[gold: set -10]")["gold"] == -10  # no min: the negative stays
    result = cli.parse(GAME, "[health: set -10]")
    assert result["effects"] == [
        {"variableId": "health", "path": [], "operation": "set", "value": -10}
    ]


@pytest.mark.parametrize(
    ("reply", "start", "expected"),
    [
        ("[health: +50]", 80, 100),
        ("[health: -150]", 80, 0),
        ("[health: 150]", 80, 100),
        ("[health: *3]", 80, 100),
        ("[enemy-hp: -22]", 10, 0),
        ("[enemy-hp: +1000]", 10, 1010),  # min only: no upper bound
    ],
)
def test_numbers_clamp_to_min_and_max(cli: Cli, reply: str, start: int, expected: int) -> None:
    variable = reply[1:].split(":")[0]
    assert state_of(cli, reply, {variable: start})[variable] == expected


def test_a_variable_is_named_by_id_or_by_display_name(cli: Cli) -> None:
    assert state_of(cli, "[Player HP: -5]")["player-hp"] == 45
    assert state_of(cli, "[player-hp: -5]")["player-hp"] == 45
    assert state_of(cli, "[Health: -5]")["health"] == 95


# --- seed 000/002: dot paths ----------------------------------------------------------------


def test_dot_paths_create_intermediates_and_index_arrays(cli: Cli) -> None:
    values = state_of(
        cli,
        "[relationships.aria.trust: +10]\n"
        "[game-state.factions.ember-court.affinity: set 75]\n"
        "[inventory.0.durability: -1]",
    )
    assert values["relationships"] == {"aria": {"trust": 10}}
    assert values["game-state"] == {"turn": 1, "factions": {"ember-court": {"affinity": 75}}}
    assert values["inventory"][0] == {"name": "Torch", "durability": 2}
    assert values["inventory"][1:] == GAME["variables"][14]["defaultValue"][1:]


def test_the_json_examples_of_seed_002(cli: Cli) -> None:
    values = state_of(
        cli,
        '[inventory: push {"name": "Iron Sword", "damage": 10}]\n'
        "[npcs.aria.affinity: +5]\n"
        '[npcs.aria.mood: set "happy"]\n'
        '[quest-log: push {"id": "q1", "status": "active"}]\n'
        '[config: delete "deprecated-key"]\n'
        '[notes: append " Found a clue."]\n'
        "[allies.0.trust: +5]",
    )
    assert values["inventory"][-1] == {"name": "Iron Sword", "damage": 10}
    assert values["npcs"] == {"aria": {"affinity": 5, "mood": "happy"}}
    assert values["quest-log"] == [{"id": "q1", "status": "active"}]
    assert values["config"] == {"old-field": 1, "keep": True}
    assert values["notes"] == "Day one. Found a clue."
    assert values["allies"][0]["trust"] == 55


def test_merge_is_shallow_and_set_replaces_a_json_array(cli: Cli) -> None:
    npcs = {"aria": {"affinity": 5, "mood": "happy"}, "bram": {"trust": 1}}
    values = state_of(cli, '[npcs: merge {"aria": {"trust": 80}}]', {"npcs": npcs})
    assert values["npcs"] == {"aria": {"trust": 80}, "bram": {"trust": 1}}
    values = state_of(cli, '[inventory: set [{"name": "Potion", "qty": 3}]]')
    assert values["inventory"] == [{"name": "Potion", "qty": 3}]
    values = state_of(cli, '[quest-log: push "item"]')
    assert values["quest-log"] == ["item"]
    values = state_of(cli, "[allies: delete 0]")
    assert [a["name"] for a in values["allies"]] == ["Cyra"]


def test_the_types_of_seed_002(cli: Cli) -> None:
    values = state_of(
        cli,
        '[health: set 50] [gold: 100] [location: set "dark forest"] [mood: set "suspicious"] '
        "[has-key: toggle] [met-elder: set true] [quest-active: set false]",
        {"health": 90},
    )
    assert (values["health"], values["gold"]) == (50, 100)
    assert (values["location"], values["mood"]) == ("dark forest", "suspicious")
    assert (values["has-key"], values["met-elder"], values["quest-active"]) == (True, True, False)


# --- seed 000: JSON Patch -----------------------------------------------------------------


def test_the_json_patch_example_of_seed_000(cli: Cli) -> None:
    reply = (
        "You drop the torch.\n"
        '<UpdateVariable target="inventory">\n'
        "<JSONPatch>\n"
        "[\n"
        '{"op": "remove", "path": "/0"},\n'
        '{"op": "replace", "path": "/1/durability", "value": 5}\n'
        "]\n"
        "</JSONPatch>\n"
        "</UpdateVariable>"
    )
    result = cli.parse(GAME, reply)
    assert result["text"] == "You drop the torch."
    # RFC 6902 order: after removing /0, /1 is the shield.
    assert result["state"]["inventory"] == [
        {"name": "Rope", "durability": 9},
        {"name": "Shield", "durability": 5},
    ]


@pytest.mark.parametrize(
    ("operation", "expected"),
    [
        ({"op": "replace", "path": "/health", "value": 80}, {"health": 80}),
        ({"op": "delta", "path": "/gold", "value": -50}, {"gold": -40}),
        ({"op": "delta", "path": "/gold", "value": 5}, {"gold": 15}),
        ({"op": "insert", "path": "/stats/torch", "value": 1}, {"stats": {"level": 1, "xp": 0,
                                                                           "torch": 1}}),
        ({"op": "remove", "path": "/config/old-field"}, {"config": {"deprecated-key": 2,
                                                                    "keep": True}}),
        ({"op": "remove", "path": "/quest-log/0"}, {"quest-log": ["b"]}),
    ],
)  # fmt: skip
def test_the_four_patch_operations_without_target(
    cli: Cli, operation: dict[str, Any], expected: dict[str, Any]
) -> None:
    reply = f"<UpdateVariable><JSONPatch>[{json.dumps(operation)}]</JSONPatch></UpdateVariable>Ok."
    result = cli.parse(GAME, reply, {"quest-log": ["a", "b"]})
    assert result["text"] == "Ok."
    assert result["skipped"] == []
    for variable, value in expected.items():
        assert result["state"][variable] == value


def test_a_patch_with_target_batches_several_fields(cli: Cli) -> None:
    reply = (
        '<UpdateVariable target="stats"><JSONPatch>['
        '{"op": "replace", "path": "/level", "value": 5},'
        '{"op": "delta", "path": "/xp", "value": 120},'
        '{"op": "insert", "path": "/title", "value": "Knight"}'
        "]</JSONPatch></UpdateVariable>"
    )
    assert state_of(cli, reply)["stats"] == {"level": 5, "xp": 120, "title": "Knight"}


def test_a_patch_converts_slash_paths_into_nested_dot_paths(cli: Cli) -> None:
    reply = (
        '<UpdateVariable target="npcs"><JSONPatch>'
        '[{"op": "replace", "path": "/aria/trust", "value": 3}]'
        "</JSONPatch></UpdateVariable>"
    )
    result = cli.parse(GAME, reply)
    assert result["state"]["npcs"] == {"aria": {"trust": 3}}
    assert result["effects"] == [
        {"variableId": "npcs", "path": ["aria", "trust"], "operation": "set", "value": 3}
    ]


# --- seed 000: the six-step pipeline -------------------------------------------------------


def test_step_1_thinking_tags_are_stripped_with_what_they_hold(cli: Cli) -> None:
    reply = "<thinking>The player is hurt. [health: -50]</thinking>The goblin snarls."
    result = cli.parse(GAME, reply)
    assert result["text"] == "The goblin snarls."
    assert result["state"]["health"] == 100
    assert cli.parse(GAME, "<think>plan</think>\nHello.")["text"] == "Hello."


def test_step_3_audio_directives_are_queued_not_shown(cli: Cli) -> None:
    reply = (
        "The tavern door swings open.\n"
        "[audio: bgm-tavern play]\n"
        "[audio: sfx-sword play]\n"
        "[audio: bgm-tavern stop]\n"
        "[audio: bgm-battle crossfade 2.5]\n"
        "[audio: ambient-rain volume 0.3]\n"
        "[audio: bgm-ambient volume 0.5]\n"
        "[audio: sfx-magic play chain:bgm-ambient]"
    )
    result = cli.parse(GAME, reply)
    assert result["text"] == "The tavern door swings open."
    assert result["audio"] == [
        {"trackId": "bgm-tavern", "action": "play", "value": None, "chain": None},
        {"trackId": "sfx-sword", "action": "play", "value": None, "chain": None},
        {"trackId": "bgm-tavern", "action": "stop", "value": None, "chain": None},
        {"trackId": "bgm-battle", "action": "crossfade", "value": 2.5, "chain": None},
        {"trackId": "ambient-rain", "action": "volume", "value": 0.3, "chain": None},
        {"trackId": "bgm-ambient", "action": "volume", "value": 0.5, "chain": None},
        {"trackId": "sfx-magic", "action": "play", "value": None, "chain": "bgm-ambient"},
    ]
    assert result["effects"] == []


def test_step_4_json_payloads_with_colons_and_numbers_are_not_misread(cli: Cli) -> None:
    result = cli.parse(GAME, 'You feel stronger. [stats: merge {"health": 50, "mana": 30}]')
    assert result["text"] == "You feel stronger."
    assert result["state"]["stats"] == {"level": 1, "xp": 0, "health": 50, "mana": 30}
    assert result["state"]["health"] == 100
    assert result["effects"] == [
        {
            "variableId": "stats",
            "path": [],
            "operation": "merge",
            "value": {"health": 50, "mana": 30},
        }
    ]


def test_step_6_the_player_sees_clean_text_with_blank_lines_collapsed(cli: Cli) -> None:
    reply = (
        "La garra del goblin te rasguña el antebrazo, trazando una línea ardiente de dolor.\n"
        "\n\n\n[health: -15]\n\n\n\nRetrocedes.\n[gold: +50]"
    )
    result = cli.parse(GAME, reply)
    assert result["text"] == (
        "La garra del goblin te rasguña el antebrazo, trazando una línea ardiente de dolor."
        "\n\nRetrocedes."
    )
    assert (result["state"]["health"], result["state"]["gold"]) == (85, 60)
    assert cli.parse(GAME, "One.\n\n\n\n\nTwo.")["text"] == "One.\n\nTwo."


def test_all_six_steps_in_one_reply(cli: Cli) -> None:
    reply = (
        "<thinking>They found the key.</thinking>\n"
        "You pick up the key and the music swells.\n"
        '<UpdateVariable target="inventory"><JSONPatch>'
        '[{"op": "remove", "path": "/0"}]'
        "</JSONPatch></UpdateVariable>\n"
        "[audio: bgm-battle crossfade 2.5]\n"
        '[stats: merge {"level": 2}]\n'
        "[has-key: toggle] [gold: +5]\n"
        "\n\n\nThe door creaks."
    )
    result = cli.parse(GAME, reply)
    assert result["text"] == "You pick up the key and the music swells.\n\nThe door creaks."
    assert [e["operation"] for e in result["effects"]] == ["delete", "merge", "toggle", "add"]
    assert result["audio"][0]["trackId"] == "bgm-battle"
    state = result["state"]
    assert (state["has-key"], state["gold"], state["stats"]["level"]) == (True, 15, 2)
    assert [item["name"] for item in state["inventory"]] == ["Rope", "Shield"]


def test_directives_in_mid_sentence_still_work(cli: Cli) -> None:
    result = cli.parse(GAME, "The blade hits you [health: -8] hard.")
    assert result["text"] == "The blade hits you hard."
    assert result["state"]["health"] == 92


def test_a_directive_before_punctuation_leaves_no_stray_space(cli: Cli) -> None:
    result = cli.parse(GAME, "You find a purse [gold: +50]. It is heavy [audio: sfx-sword play]!")
    assert result["text"] == "You find a purse. It is heavy!"
    assert cli.parse(GAME, "你被击中了 [health: -5]。")["text"] == "你被击中了。"
    stream = cli.stream(GAME, ["You find a purse [go", "ld: +50]", ". It is heavy."])
    assert stream["text"] == "You find a purse. It is heavy."


def test_the_combat_pattern_of_seed_000(cli: Cli) -> None:
    first = cli.parse(
        GAME,
        "La daga del bandido te alcanza en las costillas: un corte\n"
        "superficial, pero quema. Retrocedes tambaleándote, manteniendo la guardia alta.\n"
        "[health: -8]",
    )
    assert first["text"].endswith("manteniendo la guardia alta.")
    assert first["state"]["health"] == 92
    second = cli.parse(GAME, "El bandido grita.\n[enemy-hp: -22]")
    assert (second["text"], second["state"]["enemy-hp"]) == ("El bandido grita.", 18)


# --- seed 000: malformed directives are skipped silently -----------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        '[stats: merge {"level": 2]',  # unmatched brace
        '[stats: merge {"level: 2}]',  # missing quote
        '[inventory: push {"name": "Sword"]',
        '<UpdateVariable><JSONPatch>[{"op": "replace", "path": "/health", "value": 8</JSONPatch>'
        "</UpdateVariable>",
        "<UpdateVariable><JSONPatch>not json</JSONPatch></UpdateVariable>",
        "[health: -]",
        "[audio: bgm-tavern]",
        "[audio: bgm-tavern volume loud]",
        "[stats: merge [1, 2]]",
        "[" * 50 + "health: -1" + "]" * 50,
        '[stats: merge {"a": {"b": {"c": ' * 30,
    ],
)
def test_malformed_directives_are_skipped_without_failing(cli: Cli, reply: str) -> None:
    result = cli.parse(GAME, f"The story goes on. {reply} The end.")
    assert result["text"].startswith("The story goes on.")
    assert result["text"].endswith("The end.")
    assert result["state"]["stats"] == {"level": 1, "xp": 0}
    assert result["state"]["inventory"] == GAME["variables"][14]["defaultValue"]


def test_a_malformed_directive_does_not_stop_the_others(cli: Cli) -> None:
    result = cli.parse(GAME, '[stats: merge {"level": 2] [gold: +5] [health: -5]')
    assert (result["state"]["gold"], result["state"]["health"]) == (15, 95)
    assert result["state"]["stats"] == {"level": 1, "xp": 0}
    assert len(result["skipped"]) == 1


def test_malformed_json_exits_zero_as_a_subprocess(tmp_path: Path) -> None:
    world = tmp_path / "w.json"
    world.write_text(json.dumps(GAME), encoding="utf-8")
    done = subprocess_cli(
        "parse", "--world", str(world), stdin='Hi. [stats: merge {"level": 2] [gold: +1]'
    )
    assert done.status == 0, done.err
    data = json.loads(done.out)
    assert set(data) == {"text", "state", "audio", "effects", "skipped"}
    assert data["text"] == "Hi."
    assert data["state"]["gold"] == 11
    assert set(data["state"]) == {v["id"] for v in GAME["variables"]}


def test_brackets_that_name_no_variable_stay_in_the_story(cli: Cli) -> None:
    # Seed ambiguity: an undeclared head is not a directive the engine can apply; it is left in
    # the narrative (a chapter title in brackets must survive) and reported in "skipped" when it
    # looks like a variable id.
    result = cli.parse(GAME, "[Chapter 2] [Chapter 3: The Road] Hello.")
    assert result["text"] == "[Chapter 2] [Chapter 3: The Road] Hello."
    assert result["effects"] == []


# --- streaming ----------------------------------------------------------------------------


def test_stream_never_shows_a_directive_even_split_across_chunks(cli: Cli) -> None:
    result = cli.stream(
        GAME, ["You take [hea", "lth: -5] damage", ". <think", "ing>secret", "</th", "inking>Done."]
    )
    assert result["text"] == "You take damage. Done."
    assert all(delta for delta in result["deltas"])
    joined = "".join(result["deltas"])
    assert "[" not in joined and "secret" not in joined and "<" not in joined
    assert result["text"] == joined


def test_stream_and_parse_agree_on_the_seed_examples(cli: Cli) -> None:
    reply = (
        "<thinking>x</thinking>The door opens. [audio: bgm-tavern play]\n"
        '[stats: merge {"health": 50, "mana": 30}]\n\n\n\n[Player HP: -5] You enter.'
        '<UpdateVariable target="inventory"><JSONPatch>[{"op": "remove", "path": "/0"}]'
        "</JSONPatch></UpdateVariable>"
    )
    expected = cli.parse(GAME, reply)["text"]
    for size in (1, 3, 7, 50):
        chunks = [reply[i : i + size] for i in range(0, len(reply), size)]
        assert cli.stream(GAME, chunks)["text"] == expected


# --- seed 002: ids, categories, behaviour rules ---------------------------------------------


def test_category_is_accepted_and_stripped(cli: Cli) -> None:
    world = {"name": "C", "variables": [
        {"id": "health", "type": "number", "category": "stat"},
        {"id": "gold", "type": "number", "category": "not-a-known-category"},
    ]}  # fmt: skip
    assert cli.validate(world).status == 0
    exported = api.export_world(api.load_world(world))
    assert all("category" not in variable for variable in exported["variables"])
    assert api.load_world(world).warnings == []


@pytest.mark.parametrize("reserved", ["audio", "user", "char", "time", "date"])
def test_reserved_variable_ids_are_refused(cli: Cli, reserved: str) -> None:
    done = cli.validate({"name": "R", "variables": [{"id": reserved, "type": "string"}]})
    assert done.status == 1
    assert done.out.startswith(f"variables[0].id: '{reserved}' is a reserved word")


@pytest.mark.parametrize("bad", ["Player Health", "player_health", "playerHealth", "-x", "a--b"])
def test_variable_ids_must_be_kebab_case(cli: Cli, bad: str) -> None:
    done = cli.validate({"name": "K", "variables": [{"id": bad, "type": "number"}]})
    assert done.status == 1
    assert done.out == (
        "variables[0].id: must be kebab-case (lowercase letters, digits and single hyphens)\n"
    )


def test_variable_ids_must_be_unique(cli: Cli) -> None:
    world = {"name": "U", "variables": [{"id": "hp", "type": "number"}] * 2}
    done = cli.validate(world)
    assert done.status == 1
    assert "variables[1].id: duplicate id 'hp'" in done.out


def test_an_id_becomes_a_macro_name(cli: Cli) -> None:
    world = {"name": "M", "variables": [
        {"id": "player-health", "type": "number", "defaultValue": 80},
        {"id": "day-count", "type": "number", "defaultValue": 3},
    ]}  # fmt: skip
    assert cli.expand(world, "{{player-health}} on day {{day-count}}") == "80 on day 3"


def test_behavior_rules_reach_the_system_prompt_as_a_behavior_rules_block(cli: Cli) -> None:
    rules = GAME["variables"][0] | {"behaviorRules": "0 = death. Max change per turn: 30."}
    world = {"name": "B", "variables": [rules]}
    messages = cli.prompt(world, [("user", "hi")])["messages"]
    block = next(m["content"] for m in messages if "<behavior-rules>" in m["content"])
    assert "0 = death. Max change per turn: 30." in block
    assert block.index("<behavior-rules>") < block.index("</behavior-rules>")


# --- seed 000 and 004: macros ---------------------------------------------------------------

MACRO_WORLD: dict[str, Any] = {
    "name": "Moonlit Inn",
    "settings": {"playerName": "Wanderer"},
    "entries": [{"id": "luna", "name": "Luna", "role": "character", "content": "A witch."}],
    "variables": [
        {"id": "mood", "type": "string", "defaultValue": "tense"},
        {"id": "player-health", "type": "number", "defaultValue": 100},
        {"id": "health", "type": "number", "defaultValue": 72.0},
        {"id": "location", "type": "string", "defaultValue": "the cellar"},
        {"id": "inventory", "type": "json", "defaultValue": [{"name": "Sword", "qty": 1}]},
        {"id": "flags", "type": "json", "defaultValue": {"door": "open"}},
        {"id": "has-key", "type": "boolean", "defaultValue": True},
    ],
}
NOW = "2026-05-13T14:30:05"


def test_the_luna_and_kai_example_of_seed_000(cli: Cli) -> None:
    text = (
        "{{char}} alza la vista cuando {{user}} entra en la habitación. La hora actual\n"
        "es {{time}}, y el clima afuera está {{random::clear::overcast::drizzling}}.\n"
        "El humor de {{char}} parece {{mood}} hoy."
    )
    pattern = re.escape(
        "Luna alza la vista cuando Kai entra en la habitación. La hora actual\n"
        "es 14:00, y el clima afuera está WEATHER.\n"
        "El humor de Luna parece tense hoy."
    ).replace("WEATHER", "(clear|overcast|drizzling)")
    contexts = [
        {"persona": {"name": "Kai"}, "now": "2026-05-13T14:00:00"},
        {"char": "Luna", "user": "Kai", "now": "2026-05-13T14:00:00+02:00"},
    ]
    for context in contexts:
        assert re.fullmatch(pattern, cli.expand(MACRO_WORLD, text, context))
    world = MACRO_WORLD | {"entries": [], "name": "Luna", "settings": {"playerName": "Kai"}}
    expanded = cli.expand(world, text, {"now": "2026-05-13T14:00:00"}, {"mood": "tense"})
    assert re.fullmatch(pattern, expanded)


def test_essential_macros(cli: Cli) -> None:
    context = {"char": "Luna", "user": "Kai", "turn": 42}
    assert cli.expand(MACRO_WORLD, "{{char}}|{{user}}|{{turnCount}}", context) == "Luna|Kai|42"


def test_user_follows_the_persona_then_falls_back_to_player_name(cli: Cli) -> None:
    persona = {"name": "Kai", "appearance": "tall", "personality": "wry", "backstory": "orphan"}
    assert cli.expand(MACRO_WORLD, "{{user}}", {"persona": persona, "user": "acct"}) == "Kai"
    assert cli.expand(MACRO_WORLD, "{{user}}", {"user": "acct"}) == "acct"
    assert cli.expand(MACRO_WORLD, "{{user}}") == "Wanderer"
    assert cli.expand({"name": "Default"}, "{{user}}") == "User"  # playerName's default
    blank = {"name": "Blank", "settings": {"playerName": ""}}
    assert cli.expand(blank, "{{user}}") == "Player"  # seed 004: ... → "Player"


def test_char_comes_from_the_world(cli: Cli) -> None:
    assert cli.expand(MACRO_WORLD, "{{char}}") == "Luna"
    assert cli.expand({"name": "Aria"}, "{{char}}") == "Aria"


def test_persona_macros(cli: Cli) -> None:
    persona = {"name": "Kai", "appearance": "tall", "personality": "wry", "backstory": "orphan"}
    text = "{{persona_name}}|{{persona_appearance}}|{{persona_personality}}|{{persona_backstory}}"
    assert cli.expand(MACRO_WORLD, text, {"persona": persona}) == "Kai|tall|wry|orphan"
    combined = cli.expand(MACRO_WORLD, "{{persona}}", {"persona": persona})
    assert all(value in combined for value in persona.values())


def test_random_rerolls_on_each_expansion_while_pick_is_stable_within_a_turn(cli: Cli) -> None:
    options = "::".join(f"o{i}" for i in range(12))
    randoms = {cli.expand(MACRO_WORLD, f"{{{{random::{options}}}}}") for _ in range(25)}
    assert len(randoms) > 1
    assert randoms <= {f"o{i}" for i in range(12)}
    picks = {cli.expand(MACRO_WORLD, f"{{{{pick::{options}}}}}", {"turn": 7}) for _ in range(25)}
    assert len(picks) == 1
    # the same entry expanded twice in one turn shows the same pick
    twice = cli.expand(MACRO_WORLD, f"A {{{{pick::{options}}}}}", {"turn": 7})
    assert twice == cli.expand(MACRO_WORLD, f"A {{{{pick::{options}}}}}", {"turn": 7})
    across_turns = {
        cli.expand(MACRO_WORLD, f"{{{{pick::{options}}}}}", {"turn": turn}) for turn in range(25)
    }
    assert len(across_turns) > 1


def test_random_is_reproducible_with_a_seed(cli: Cli) -> None:
    options = "::".join(f"o{i}" for i in range(12))
    context = {"seed": 5, "turn": 2}
    results = {cli.expand(MACRO_WORLD, f"{{{{random::{options}}}}}", context) for _ in range(5)}
    assert len(results) == 1


def test_roll_stays_in_range(cli: Cli) -> None:
    text = "{{roll::2d6+3}} {{roll::1d20}} {{roll::2d6+1}} {{roll::3d4}}"
    seen = set()
    for _ in range(30):
        two_d6_3, d20, two_d6_1, three_d4 = map(int, cli.expand(MACRO_WORLD, text).split())
        assert 5 <= two_d6_3 <= 15
        assert 1 <= d20 <= 20
        assert 3 <= two_d6_1 <= 13
        assert 3 <= three_d4 <= 12
        seen.add(two_d6_3)
    assert len(seen) > 1


def test_time_and_date_macros(cli: Cli) -> None:
    text = "{{time}}|{{date}}|{{weekday}}|{{isodate}}|{{isotime}}|{{idle}}"
    context = {"now": NOW, "idle_seconds": 300}
    time_, date, weekday, isodate, isotime, idle = cli.expand(MACRO_WORLD, text, context).split("|")
    assert (time_, isodate, isotime) == ("14:30", "2026-05-13", "14:30:05")
    assert date == "May 13, 2026"
    assert weekday == "Wednesday"
    assert idle == "5 minutes"


def test_time_macros_follow_the_world_language(cli: Cli) -> None:
    # Seed 000: {{date}} "formato local" 13/5/2026, {{weekday}} martes, {{idle}} 5 minutos;
    # seed 004: 「5 分钟」. The world's language picks the format.
    text = "{{date}}|{{weekday}}|{{idle}}"
    context = {"now": NOW, "idle_seconds": 300}
    spanish = MACRO_WORLD | {"language": "es"}
    assert cli.expand(spanish, text, context) == "13/5/2026|miércoles|5 minutos"
    chinese = MACRO_WORLD | {"language": "zh"}
    assert cli.expand(chinese, text, context) == "2026/5/13|星期三|5 分钟"


def test_time_macros_read_the_clock_when_the_context_has_none(cli: Cli) -> None:
    out = cli.expand(MACRO_WORLD, "{{time}}|{{isodate}}|{{isotime}}|{{weekday}}")
    time_, isodate, isotime, weekday = out.split("|")
    assert re.fullmatch(r"\d\d:\d\d", time_)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", isodate)
    assert re.fullmatch(r"\d\d:\d\d:\d\d", isotime)
    assert weekday in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                       "Sunday")  # fmt: skip


def test_context_macros(cli: Cli) -> None:
    context = {
        "model": "claude-x",
        "messages": [
            {"role": "user", "content": "I open the door."},
            {"role": "assistant", "content": "It creaks."},
            {"role": "user", "content": "I step in."},
        ],
    }
    text = "{{lastMessage}}|{{lastUserMessage}}|{{lastCharMessage}}|{{model}}"
    assert cli.expand(MACRO_WORLD, text, context) == ("I step in.|I step in.|It creaks.|claude-x")


def test_comment_and_trim(cli: Cli) -> None:
    assert cli.expand(MACRO_WORLD, "A{{// a note for creators}}B") == "AB"
    assert cli.expand(MACRO_WORLD, "Left   \n {{trim}}  \n Right") == "LeftRight"


def test_variable_fallback(cli: Cli) -> None:
    text = "{{mood}}|{{player-health}}|{{health}}|{{inventory}}|{{flags}}|{{has-key}}|{{location}}"
    assert cli.expand(MACRO_WORLD, text) == (
        'tense|100|72|[{"name":"Sword","qty":1}]|{"door":"open"}|true|the cellar'
    )
    assert cli.expand(MACRO_WORLD, "{{mood}}", state={"mood": "suspicious"}) == "suspicious"


def test_unknown_macros_stay_literal(cli: Cli) -> None:
    text = "{{unknown}} {{xyz::a}} {{ }}"
    assert cli.expand(MACRO_WORLD, text) == text


def test_the_dice_check_pattern_of_seed_000(cli: Cli) -> None:
    text = "Cuando {{user}} intente algo arriesgado. Tirada: {{roll::1d20}}. 15+ = éxito"
    out = cli.expand(MACRO_WORLD, text, {"user": "Kai"})
    match = re.fullmatch(r"Cuando Kai intente algo arriesgado\. Tirada: (\d+)\. 15\+ = éxito", out)
    assert match is not None
    assert 1 <= int(match.group(1)) <= 20


def test_the_python_api_fills_the_clock_and_rerolls_random() -> None:
    world = api.load_world(MACRO_WORLD)
    assert re.fullmatch(r"\d\d:\d\d", api.expand_macros(world, "{{time}}"))
    options = "::".join(f"o{i}" for i in range(12))
    results = {api.expand_macros(world, f"{{{{random::{options}}}}}") for _ in range(25)}
    assert len(results) > 1
    assert api.expand_macros(world, "{{char}}, {{mood}}", {"mood": "calm"}) == "Luna, calm"


def test_prompt_macros_read_the_clock_and_the_session_turn(cli: Cli) -> None:
    world = {
        "name": "T",
        "entries": [{"id": "a", "content": "It is {{time}}, turn {{turnCount}}."}],
    }
    content = cli.prompt(world, [])["messages"][0]["content"]
    assert re.fullmatch(r"It is \d\d:\d\d, turn 0\.", content)
    result = api.assemble_prompt(api.load_world(world), [], SessionState(turn=6))
    assert re.fullmatch(r"It is \d\d:\d\d, turn 6\.", result.messages[0].content)


# --- seed 004: keyword matching and conditions ----------------------------------------------


def lore(entry_id: str, keywords: list[str], **fields: Any) -> dict[str, Any]:
    return {
        "id": entry_id,
        "section": "chat-history",
        "keywords": keywords,
        "content": entry_id.upper(),
        **fields,
    }


def fired(cli: Cli, world: dict[str, Any], chat: list[tuple[str, str]], **kw: Any) -> list[str]:
    return [item["entry"] for item in cli.prompt(world, chat, **kw)["fired"]]


def test_any_primary_keyword_fires_a_chat_history_entry(cli: Cli) -> None:
    world = {"name": "K", "entries": [lore("tavern", ["tavern", "inn", "bar", "drink"])]}
    assert fired(cli, world, [("user", "Let's grab a DRINK.")]) == ["tavern"]
    assert fired(cli, world, [("user", "Let's go home.")]) == []
    assert fired(cli, world, []) == []


@pytest.mark.parametrize(
    ("logic", "fires"),
    [
        ("AND_ANY", [False, True, True]),
        ("AND_ALL", [False, False, True]),
        ("NOT_ANY", [True, False, False]),
        ("NOT_ALL", [True, True, False]),
    ],
)
def test_secondary_keyword_logic(cli: Cli, logic: str, fires: list[bool]) -> None:
    entry = lore("tavern", ["tavern"], secondaryKeywords=["ale", "bard"])
    entry["secondaryKeywordLogic"] = logic
    world = {"name": "S", "entries": [entry]}
    for message, expected in zip(
        ["the tavern", "the tavern and its ale", "the tavern, its ale and a bard"],
        fires,
        strict=True,
    ):
        assert (fired(cli, world, [("user", message)]) == ["tavern"]) is expected, message
    assert fired(cli, world, [("user", "ale and a bard")]) == []  # primary is always required


def test_match_whole_words(cli: Cli) -> None:
    whole = {"name": "W", "entries": [lore("tavern", ["inn"], matchWholeWords=True)]}
    assert fired(cli, whole, [("user", "We win inning after inning.")]) == []
    assert fired(cli, whole, [("user", "To the inn!")]) == ["tavern"]
    partial = {"name": "P", "entries": [lore("tavern", ["inn"])]}
    assert fired(cli, partial, [("user", "We win innings.")]) == ["tavern"]


def test_keywords_are_scanned_within_lorebook_scan_depth(cli: Cli) -> None:
    chat = [("user", "The dragon roars."), ("assistant", "It flies off."), ("user", "I wait.")]
    world: dict[str, Any] = {"name": "D", "entries": [lore("dragon", ["dragon"])]}
    assert fired(cli, world, chat) == []  # default depth 2: the last two messages
    world["settings"] = {"lorebookScanDepth": 3}
    assert fired(cli, world, chat) == ["dragon"]
    world["settings"] = {"lorebookScanDepth": 0}
    assert fired(cli, world, [("user", "dragon")]) == []


def test_recursion_prevent_and_exclude(cli: Cli) -> None:
    entries = [
        lore("tavern", ["tavern"], content="The innkeeper Bram pours ale."),
        lore("bram", ["bram"]),
        lore("ale", ["ale"], excludeRecursion=True),
        lore("secret", ["tavern"], content="A dragon sleeps below.", preventRecursion=True),
        lore("dragon", ["dragon"]),
    ]
    world: dict[str, Any] = {"name": "R", "entries": entries}
    chat = [("user", "Into the tavern.")]
    assert fired(cli, world, chat) == ["tavern", "secret"]  # lorebookRecursionDepth 0
    world["settings"] = {"lorebookRecursionDepth": 1}
    assert fired(cli, world, chat) == ["tavern", "bram", "secret"]
    assert fired(cli, world, [("user", "tavern ale")]) == ["tavern", "bram", "ale", "secret"]


CONDITION_VARIABLES = [
    {"id": "aria-trust", "type": "number", "defaultValue": 20},
    {"id": "story-phase", "type": "string", "defaultValue": "act1"},
    {"id": "in-combat", "type": "boolean", "defaultValue": False},
    {"id": "tags", "type": "json", "defaultValue": ["brave"]},
    {"id": "title", "type": "string", "defaultValue": "Lord of Ash"},
]


@pytest.mark.parametrize(
    ("condition", "true_for", "false_for"),
    [
        ({"variableId": "story-phase", "operator": "eq", "value": "act2"},
         {"story-phase": "act2"}, {"story-phase": "act1"}),
        ({"variableId": "story-phase", "operator": "neq", "value": "act2"},
         {"story-phase": "act1"}, {"story-phase": "act2"}),
        ({"variableId": "aria-trust", "operator": "gt", "value": 30},
         {"aria-trust": 31}, {"aria-trust": 30}),
        ({"variableId": "aria-trust", "operator": "lt", "value": 30},
         {"aria-trust": 29}, {"aria-trust": 30}),
        ({"variableId": "aria-trust", "operator": "gte", "value": 30},
         {"aria-trust": 30}, {"aria-trust": 29}),
        ({"variableId": "aria-trust", "operator": "lte", "value": 30},
         {"aria-trust": 30}, {"aria-trust": 31}),
        ({"variableId": "in-combat", "operator": "eq", "value": True},
         {"in-combat": True}, {"in-combat": False}),
        ({"variableId": "tags", "operator": "contains", "value": "brave"},
         {"tags": ["brave", "kind"]}, {"tags": ["kind"]}),
        ({"variableId": "title", "operator": "contains", "value": "Ash"},
         {"title": "Lord of Ash"}, {"title": "Lord of Dust"}),
    ],
)  # fmt: skip
def test_each_condition_operator(
    cli: Cli, condition: dict[str, Any], true_for: dict[str, Any], false_for: dict[str, Any]
) -> None:
    entry = {"id": "gated", "content": "GATED", "conditions": [condition]}
    world = {"name": "C", "variables": CONDITION_VARIABLES, "entries": [entry]}
    assert fired(cli, world, [], state=true_for) == ["gated"]
    assert fired(cli, world, [], state=false_for) == []


def test_condition_logic_all_and_any(cli: Cli) -> None:
    conditions = [
        {"variableId": "story-phase", "operator": "eq", "value": "act2"},
        {"variableId": "aria-trust", "operator": "gt", "value": 0},
    ]
    both = {"id": "both", "content": "B", "conditions": conditions, "conditionLogic": "all"}
    either = {"id": "either", "content": "E", "conditions": conditions, "conditionLogic": "any"}
    world = {"name": "L", "variables": CONDITION_VARIABLES, "entries": [both, either]}
    assert fired(cli, world, [], state={"story-phase": "act1", "aria-trust": 5}) == ["either"]
    assert fired(cli, world, [], state={"story-phase": "act2", "aria-trust": 5}) == [
        "both",
        "either",
    ]
    assert fired(cli, world, [], state={"story-phase": "act1", "aria-trust": 0}) == []


def test_the_aria_relationship_stages_of_seed_000(cli: Cli) -> None:
    def stage(entry_id: str, *conditions: tuple[str, int]) -> dict[str, Any]:
        return {
            "id": entry_id,
            "section": "chat-history",
            "content": entry_id,
            "conditions": [
                {"variableId": "aria-trust", "operator": op, "value": value}
                for op, value in conditions
            ],
        }

    world = {
        "name": "Aria",
        "variables": [{"id": "aria-trust", "type": "number", "defaultValue": 0, "min": 0,
                       "max": 100}],
        "entries": [
            stage("aria-cautious", ("lt", 30)),
            stage("aria-warming", ("gte", 30), ("lt", 60)),
            stage("aria-close", ("gte", 60)),
        ],
    }  # fmt: skip
    stages = [
        (0, "aria-cautious"),
        (29, "aria-cautious"),
        (30, "aria-warming"),
        (59, "aria-warming"),
        (60, "aria-close"),
        (100, "aria-close"),
    ]
    for trust, expected in stages:
        assert fired(cli, world, [], state={"aria-trust": trust}) == [expected]
    after = cli.parse(world, "She smiles. [aria-trust: +5]", {"aria-trust": 27})["state"]
    assert fired(cli, world, [], state=after) == ["aria-warming"]


def test_keyword_and_conditions_must_both_hold(cli: Cli) -> None:
    entry = lore(
        "secret",
        ["door"],
        conditions=[{"variableId": "in-combat", "operator": "eq", "value": False}],
    )
    world = {"name": "KC", "variables": CONDITION_VARIABLES, "entries": [entry]}
    assert fired(cli, world, [("user", "the door")]) == ["secret"]
    assert fired(cli, world, [("user", "the door")], state={"in-combat": True}) == []
    assert fired(cli, world, [("user", "the wall")]) == []


def test_disabled_entries_and_greetings_are_never_sent(cli: Cli) -> None:
    world = {"name": "G", "entries": [
        {"id": "off", "content": "OFF", "enabled": False},
        lore("off-lore", ["tavern"], enabled=False),
        {"id": "hello", "role": "greeting", "content": "Welcome, traveller."},
    ]}  # fmt: skip
    result = cli.prompt(world, [("user", "tavern")])
    assert result["fired"] == []
    assert not any(
        text in m["content"]
        for m in result["messages"]
        for text in ("OFF", "OFF-LORE", "Welcome, traveller.")
    )


# --- seed 004: the 13-step prompt assembly ------------------------------------------------

PROMPT_WORLD: dict[str, Any] = {
    "name": "Thirteen",
    "variables": [
        {"id": "health", "name": "Health", "type": "number", "defaultValue": 100, "min": 0,
         "max": 100, "behaviorRules": "0 = death."},
    ],
    "audioTracks": [{"id": "bgm-tavern", "type": "bgm"}],
    "entries": [
        {"id": "post-b", "section": "post-history", "position": 1, "content": "POST B"},
        {"id": "cot", "section": "post-history", "position": 0, "apiRole": "user",
         "content": "POST A {{user}}"},
        {"id": "task", "section": "system-presets", "position": 1, "content": "TASK"},
        {"id": "fiction", "section": "system-presets", "position": 0, "content": "FICTION"},
        {"id": "examples", "section": "examples", "role": "example",
         "content": "<START>\n{{user}}: Hi\n{{char}}: Hello, {{user}}.\n<START>\n"
                    "{{user}}: Bye\n{{char}}: Farewell."},
        {"id": "tavern", "section": "chat-history", "keywords": ["tavern"],
         "content": "TAVERN LORE"},
        {"id": "dragon-now", "section": "chat-history", "keywords": ["dragon"], "depth": 0,
         "content": "DRAGON AT DEPTH 0"},
        {"id": "dragon-deep", "section": "chat-history", "keywords": ["dragon"], "depth": 2,
         "content": "DRAGON AT DEPTH 2", "apiRole": "assistant"},
    ],
}  # fmt: skip
CHAT = [
    ("user", "Hello."),
    ("assistant", "Welcome."),
    ("user", "Is there a tavern? I saw a dragon."),
]


def test_prompt_follows_the_thirteen_steps_with_the_breakpoint_after_examples() -> None:
    world = api.load_world(PROMPT_WORLD)
    state = SessionState(
        values={"health": 42},
        turn=3,
        compaction_summary="They met at dawn.",
        session_memory="Kai fears water.",
        pending_context=[ContextMessage(role="user", content="A hidden event happened.")],
        directives={
            "mood": InjectedDirective(id="mood", content="Keep it tense.", position="after_char")
        },
    )
    result = api.assemble_prompt(
        world,
        [Message(role, content) for role, content in CHAT],
        state,
        persona=Persona("Kai", "tall"),
        context=api.MacroContext(turn=3, char="Luna"),
    )
    got = [(m.role, m.content) for m in result.messages]
    static = got[2][1]
    assert "<behavior-rules>" in static and "0 = death." in static and "bgm-tavern" in static
    assert got == [
        ("system", "FICTION\n\nTASK"),  # 1 system presets by position
        ("system", "<persona>\nName: Kai\nAppearance: tall\n</persona>"),  # 2 active persona
        ("system", static),  # 3 static format
        ("system", "[Example Chat]"),  # 4 examples as user/assistant pairs
        ("user", "Hi"),
        ("assistant", "Hello, Kai."),
        ("system", "[Example Chat]"),
        ("user", "Bye"),
        ("assistant", "Farewell."),
        # 5 the cache breakpoint
        ("system", "TAVERN LORE\n\nKeep it tense."),  # 6 triggered entries (+ after_char)
        ("system", "[Start a new Chat]"),  # 7
        ("system", "<story-summary>\nThey met at dawn.\n</story-summary>"),  # 8
        ("system", "<session-memory>\nKai fears water.\n</session-memory>"),  # 9
        ("assistant", "DRAGON AT DEPTH 2"),  # 10 history with depth-injected entries
        ("user", "Hello."),
        ("assistant", "Welcome."),
        ("system", "DRAGON AT DEPTH 0"),  # depth 0: just before the latest message
        ("user", "Is there a tavern? I saw a dragon."),
        ("user", "A hidden event happened."),  # 11 pending context
        ("system", "<current-state>\nhealth: 42\n</current-state>"),  # 12 dynamic format
        ("user", "POST A Kai"),  # 13 post-history by position, with its apiRole
        ("system", "POST B"),
    ]
    assert result.breakpoint == 9
    assert [(f.entry_id, f.reason.split(" ")[0]) for f in result.fired] == [
        ("post-b", "always"),
        ("cot", "always"),
        ("task", "always"),
        ("fiction", "always"),
        ("examples", "always"),
        ("tavern", "keyword"),
        ("dragon-now", "keyword"),
        ("dragon-deep", "keyword"),
    ]


def test_prompt_command_prints_messages_breakpoint_and_fired(cli: Cli) -> None:
    result = cli.prompt(PROMPT_WORLD, CHAT, context={"persona": {"name": "Kai"}})
    assert set(result) == {"messages", "breakpoint", "fired"}
    messages = result["messages"]
    assert all(set(m) == {"role", "content"} for m in messages)
    breakpoint_ = result["breakpoint"]
    above = [m["content"] for m in messages[:breakpoint_]]
    assert above[-3:] == ["[Example Chat]", "Bye", "Farewell."]
    assert messages[breakpoint_]["content"] == "TAVERN LORE"
    start = next(i for i, m in enumerate(messages) if m["content"] == "[Start a new Chat]")
    assert start == breakpoint_ + 1
    assert messages[-1] == {"role": "system", "content": "POST B"}
    assert messages[-2] == {"role": "user", "content": "POST A Kai"}
    latest = messages.index({"role": "user", "content": CHAT[-1][1]})
    assert messages[latest - 1]["content"] == "DRAGON AT DEPTH 0"
    assert {"entry": "tavern", "reason": result["fired"][5]["reason"]} == result["fired"][5]
    assert "tavern" in result["fired"][5]["reason"]


def test_the_part_above_the_breakpoint_does_not_change_with_the_chat_or_state(cli: Cli) -> None:
    first = cli.prompt(PROMPT_WORLD, CHAT[:1], state={"health": 100})
    later = cli.prompt(PROMPT_WORLD, CHAT, state={"health": 5}, context={"turn": 9})
    assert first["breakpoint"] == later["breakpoint"]
    cut = first["breakpoint"]
    assert first["messages"][:cut] == later["messages"][:cut]


def test_examples_speak_with_the_character_and_persona_names(cli: Cli) -> None:
    world = {"name": "N", "entries": [
        {"id": "luna", "name": "Luna", "role": "character", "content": "Luna."},
        {"id": "ex", "section": "examples", "content": "<START>\nKai: Hi\nLuna: Hello.\n"
                                                       "She waves."},
    ]}  # fmt: skip
    messages = cli.prompt(world, [], context={"persona": {"name": "Kai"}})["messages"]
    start = messages.index({"role": "system", "content": "[Example Chat]"})
    assert messages[start + 1 : start + 3] == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello.\nShe waves."},
    ]


def test_api_roles_send_entries_as_system_user_or_assistant(cli: Cli) -> None:
    world = {"name": "A", "entries": [
        {"id": "a", "position": 0, "content": "AS SYSTEM"},
        {"id": "b", "position": 1, "content": "AS USER", "apiRole": "user"},
        {"id": "c", "position": 2, "content": "AS ASSISTANT", "apiRole": "assistant"},
    ]}  # fmt: skip
    messages = cli.prompt(world, [])["messages"]
    assert messages[:3] == [
        {"role": "system", "content": "AS SYSTEM"},
        {"role": "user", "content": "AS USER"},
        {"role": "assistant", "content": "AS ASSISTANT"},
    ]


def test_post_history_is_last_even_with_an_empty_chat(cli: Cli) -> None:
    world = {"name": "P", "entries": [
        {"id": "style", "section": "post-history", "content": "Write in second person."},
        {"id": "rules", "content": "You are the narrator."},
    ]}  # fmt: skip
    messages = cli.prompt(world, [])["messages"]
    assert messages[0]["content"] == "You are the narrator."
    assert messages[-2]["content"] == "[Start a new Chat]"
    assert messages[-1]["content"] == "Write in second person."


def test_entries_expand_macros_but_chat_messages_do_not(cli: Cli) -> None:
    world = {
        "name": "X",
        "variables": [{"id": "mood", "type": "string", "defaultValue": "grim"}],
        "entries": [{"id": "a", "content": "{{char}} is {{mood}} on turn {{turnCount}}."}],
    }
    messages = cli.prompt(world, [("user", "{{mood}}")], context={"turn": 4})["messages"]
    assert messages[0]["content"] == "X is grim on turn 4."
    assert {"role": "user", "content": "{{mood}}"} in messages


# --- seed 004: the schema and validation ------------------------------------------------------


def test_a_minimal_world_gets_the_schema_defaults() -> None:
    exported = api.export_world(api.load_world({"name": "Minimal"}))
    assert exported["version"] == "20.0.0"
    assert exported["settings"] == {
        "maxTokens": 12000,
        "maxContext": 200000,
        "temperature": 1.0,
        "topP": 1,
        "frequencyPenalty": 0,
        "presencePenalty": 0,
        "playerName": "User",
        "lorebookScanDepth": 2,
        "lorebookRecursionDepth": 0,
        "structuredOutput": False,
    }
    for key in ("entries", "variables", "rules", "reactions", "components", "audioTracks",
                "conditionalBGM", "customUI", "entryFolders", "customTags"):  # fmt: skip
        assert exported[key] == [], key
    assert exported["rootComponent"] is None and exported["bgmPlaylist"] is None
    assert exported["editorMode"] == "advanced"


def test_the_seed_entry_example_loads_and_round_trips() -> None:
    entry = {
        "id": "unique-kebab-case-id",
        "name": "Display Name",
        "content": "The text content the AI reads...",
        "role": "character",
        "apiRole": "system",
        "section": "system-presets",
        "position": 0,
        "enabled": True,
        "keywords": [],
        "conditions": [],
        "conditionLogic": "all",
        "depth": None,
        "matchWholeWords": False,
        "secondaryKeywords": [],
        "secondaryKeywordLogic": "AND_ANY",
        "preventRecursion": False,
        "excludeRecursion": False,
        "tags": [],
        "folderId": None,
    }
    exported = api.export_world(api.load_world({"name": "E", "entries": [entry]}))
    assert {k: exported["entries"][0][k] for k in entry} == entry


def test_validation_lists_every_error_with_its_path(cli: Cli) -> None:
    world = {
        "name": "",
        "entries": [
            {"id": "a"},
            {"id": "b"},
            {"id": "c"},
            {"id": "d", "section": "lore", "role": "hero", "apiRole": "narrator"},
        ],
        "variables": [{"id": "hp", "type": "float"}],
        "settings": {"temperature": 3},
    }
    done = cli.validate(world)
    assert done.status == 1
    lines = done.out.splitlines()
    assert (
        "entries[3].section: must be one of system-presets, examples, chat-history, post-history"
    ) in lines
    assert (
        "entries[3].role: must be one of system, character, personality, scenario, lore, plot, "
        "style, example, greeting, custom"
    ) in lines
    assert "entries[3].apiRole: must be one of system, user, assistant" in lines
    assert "variables[0].type: must be one of number, string, boolean, json" in lines
    assert any(line.startswith("name: ") for line in lines)
    assert any(line.startswith("settings.temperature: ") for line in lines)
    assert len(lines) == 6
    assert str(cli.tmp) in done.err


def test_validate_exit_codes_as_a_subprocess(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GAME), encoding="utf-8")
    done = subprocess_cli("validate", "--world", str(good))
    assert done.status == 0
    assert done.out.count("\n") == 1 and done.out.startswith("Seed Game")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "B", "entries": [{"id": "x", "section": "nope"}]}))
    done = subprocess_cli("validate", "--world", str(bad))
    assert done.status == 1
    assert "entries[0].section: must be one of" in done.out
    missing = subprocess_cli("parse", "--world", str(tmp_path / "missing.json"), stdin="x")
    assert missing.status == 1
    assert "missing.json" in missing.err
    usage = subprocess_cli("parse")
    assert usage.status == 1


def test_a_21x_world_loads_with_warnings(cli: Cli) -> None:
    world = {
        "name": "Future",
        "version": "21.2.0",
        "newTopLevel": {"x": 1},
        "entries": [{"id": "a", "content": "A", "futureOption": True}],
    }
    done = cli.validate(world)
    assert done.status == 0
    assert "21.2.0" in done.err and "newTopLevel" in done.err
    assert cli.prompt(world, [])["messages"][0]["content"] == "A"
    assert cli.parse(world, "Hello.")["text"] == "Hello."


def test_other_errors_name_the_file_and_the_problem(cli: Cli) -> None:
    world = cli.file(GAME, "game.json")
    broken = cli.tmp / "broken.json"
    broken.write_text("{", encoding="utf-8")
    done = cli.run("parse", "--world", world, "--state", str(broken), stdin="x")
    assert done.status == 1
    assert str(broken) in done.err and "invalid JSON" in done.err
    done = cli.run("expand", "--world", str(broken), stdin="x")
    assert (done.status, str(broken) in done.err) == (1, True)
    not_a_chat = cli.file({"role": "user"}, "chat.json")
    done = cli.run("prompt", "--world", world, "--chat", not_a_chat)
    assert done.status == 1 and "chat.json" in done.err


# --- seed 004: rules and reactions (through the Python API) ----------------------------------


def test_the_low_health_warning_rule_of_seed_004() -> None:
    from engine.events import state_changed

    world = api.load_world(
        {
            "name": "Rules",
            "variables": GAME["variables"][:1],
            "rules": [
                {
                    "id": "low-health-warning",
                    "name": "Low Health Warning",
                    "trigger": {
                        "type": "variable-crossed",
                        "variableId": "health",
                        "direction": "drops-below",
                        "threshold": 20,
                    },
                    "actions": [
                        {
                            "type": "notify-player",
                            "style": "warning",
                            "message": "Your vision blurs. You're barely standing.",
                        },
                        {
                            "type": "inject-directive",
                            "directiveId": "critical-health",
                            "content": "The player is near death.",
                            "position": "after_char",
                            "persistent": True,
                        },
                    ],
                    "priority": 50,
                }
            ],
        }
    )
    state = SessionState.initial(world, {"health": 15})
    outcome = api.run_rules(world, state, [state_changed("health", 30, 15)])
    assert outcome.fired == ["low-health-warning"]
    assert [(n.style, n.message) for n in outcome.notifications] == [
        ("warning", "Your vision blurs. You're barely standing.")
    ]
    prompt = api.assemble_prompt(world, [Message("user", "I stagger.")], state)
    contents = [m.content for m in prompt.messages]
    assert contents.index("The player is near death.") < contents.index("[Start a new Chat]")
    rising = SessionState.initial(world, {"health": 25})
    assert api.run_rules(world, rising, [state_changed("health", 15, 25)]).fired == []


def test_the_zone_reaction_of_seed_004() -> None:
    world = api.load_world(
        {
            "name": "Reactions",
            "variables": [{"id": "weather", "type": "string", "defaultValue": "clear"}],
            "audioTracks": [{"id": "forest-ambient", "type": "ambient"}],
            "reactions": [
                {
                    "id": "zone-enter-forest",
                    "name": "Enter Forest",
                    "when": {"eventType": "spatial:zone-enter", "zone": "forest"},
                    "conditions": [],
                    "conditionLogic": "all",
                    "then": [
                        {"type": "set", "path": "weather", "value": "foggy"},
                        {
                            "type": "set",
                            "path": "@audio.ambient",
                            "value": "forest-ambient",
                            "operation": "set",
                        },
                        {"type": "emit", "event": {"type": "spatial:ambience-changed"}},
                    ],
                }
            ],
        }
    )
    state = SessionState.initial(world)
    desert = api.run_rules(world, state, [api.Event("spatial:zone-enter", {"zone": "desert"})])
    assert (desert.reactions, state.values["weather"]) == ([], "clear")
    forest = api.run_rules(world, state, [api.Event("spatial:zone-enter", {"zone": "forest"})])
    assert forest.reactions == ["zone-enter-forest"]
    assert state.values["weather"] == "foggy"
    assert [(cue.track_id, cue.action) for cue in forest.audio] == [("forest-ambient", "play")]
