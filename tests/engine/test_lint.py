"""The world linter: one test (at least) per finding code, with its exact path and message."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.lint import Finding, has_errors, lint_source, lint_world
from engine.world import WorldDefinition, load_world

BASE: dict[str, Any] = {
    "name": "Lint",
    "variables": [
        {"id": "hp", "type": "number", "defaultValue": 50, "min": 0, "max": 100,
         "behaviorRules": "Drops on a hit."},
        {"id": "lit", "type": "boolean", "defaultValue": False},
    ],
    "entries": [
        {"id": "narrator", "content": "You narrate for {{user}}."},
        {"id": "hello", "role": "greeting", "content": "Hello."},
        {"id": "cave", "section": "chat-history", "keywords": ["cave"], "content": "Dark.",
         "conditions": [{"variableId": "lit", "operator": "eq", "value": True}]},
    ],
    "rules": [
        {"id": "hurt", "trigger": {"type": "variable-crossed", "variableId": "hp",
                                   "direction": "drops-below", "threshold": 20},
         "actions": [{"type": "notify-player", "message": "Ouch"}]},
    ],
    "audioTracks": [{"id": "wind", "type": "bgm"}],
}  # fmt: skip


def world(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data


def with_entry(**entry: Any) -> dict[str, Any]:
    data = world()
    data["entries"].append({"id": "extra", **entry})
    return data


def with_rule(**rule: Any) -> dict[str, Any]:
    data = world()
    data["rules"].append({"id": "extra", "actions": [], **rule})
    return data


def found(data: dict[str, Any], code: str) -> list[tuple[str, str, str]]:
    return [(f.severity, f.path, f.message) for f in lint_source(data) if f.code == code]


def test_a_clean_world_has_no_findings():
    assert lint_source(world()) == []
    assert lint_world(load_world(world())) == []


# --- errors ------------------------------------------------------------------------------


def test_unknown_variable_in_an_entry_condition_is_an_error():
    data = with_entry(conditions=[{"variableId": "mana", "operator": "gt", "value": 1}])

    assert found(data, "unknown-variable") == [
        ("error", "entries[3].conditions[0].variableId", "unknown variable 'mana'")
    ]


def test_unknown_variables_in_triggers_actions_and_reactions_are_errors():
    data = with_rule(
        trigger={"type": "state-change", "variableId": "gold"},
        actions=[{"type": "modify-variable", "variableId": "mana", "operation": "add", "value": 1}],
    )
    data["reactions"] = [
        {"id": "r", "when": {"eventType": "turn:complete"},
         "conditions": [{"variableId": "luck", "operator": "eq", "value": 1}],
         "then": [{"type": "set", "path": "coins.copper", "value": 3}]}
    ]  # fmt: skip

    assert found(data, "unknown-variable") == [
        ("error", "rules[1].trigger.variableId", "unknown variable 'gold'"),
        ("error", "rules[1].actions[0].variableId", "unknown variable 'mana'"),
        ("error", "reactions[0].conditions[0].variableId", "unknown variable 'luck'"),
        ("error", "reactions[0].then[0].path", "unknown variable 'coins'"),
    ]


def test_a_target_by_display_name_or_dot_path_is_known():
    data = world()
    data["variables"].append({"id": "bag", "name": "Bag", "type": "json", "defaultValue": {}})
    data["rules"][0]["actions"] = [
        {"type": "modify-variable", "variableId": "Bag", "operation": "merge", "value": {}},
        {"type": "modify-variable", "variableId": "bag.coins", "value": 3},
    ]

    assert found(data, "unknown-variable") == []


def test_unknown_entry_rule_and_track_are_errors():
    data = with_rule(
        trigger={"type": "every-turn"},
        actions=[
            {"type": "toggle-entry", "entryId": "secret", "enabled": True},
            {"type": "toggle-rule", "ruleId": "phase-2"},
            {"type": "play-audio", "trackId": "drums"},
        ],
    )
    data["reactions"] = [
        {"id": "r", "when": {"eventType": "turn:complete"},
         "then": [{"type": "set", "path": "@prompt.entry.ghost", "value": True},
                  {"type": "set", "path": "@rules.disabled.gone", "value": False},
                  {"type": "set", "path": "@audio.bgm", "value": "horns"},
                  {"type": "emit", "event": {"type": "rule:fire", "ruleId": "nope"}}]}
    ]  # fmt: skip
    data["conditionalBGM"] = [{"id": "c", "targetTrackId": "lute"}]
    data["bgmPlaylist"] = {"tracks": ["wind", "harp"]}
    codes = ("unknown-entry", "unknown-rule", "unknown-track")

    assert [(f.code, f.path, f.message) for f in lint_source(data) if f.code in codes] == [
        ("unknown-entry", "rules[1].actions[0].entryId", "unknown entry 'secret'"),
        ("unknown-rule", "rules[1].actions[1].ruleId", "unknown rule 'phase-2'"),
        ("unknown-track", "rules[1].actions[2].trackId", "unknown track 'drums'"),
        ("unknown-entry", "reactions[0].then[0].path", "unknown entry 'ghost'"),
        ("unknown-rule", "reactions[0].then[1].path", "unknown rule 'gone'"),
        ("unknown-track", "reactions[0].then[2].value", "unknown track 'horns'"),
        ("unknown-rule", "reactions[0].then[3].event.ruleId", "unknown rule 'nope'"),
        ("unknown-track", "bgmPlaylist.tracks[1]", "unknown track 'harp'"),
        ("unknown-track", "conditionalBGM[0].targetTrackId", "unknown track 'lute'"),
    ]


def test_a_default_outside_its_range_is_an_error():
    data = world()
    data["variables"][0]["defaultValue"] = 150

    assert [(f.code, f.path, f.message) for f in lint_source(data)] == [
        ("default-out-of-range", "variables[0].defaultValue", "must be between 0 and 100, got 150")
    ]


def test_a_default_changed_after_loading_is_found_too():
    loaded = load_world(world())
    loaded.variables[0].default_value = -5

    assert [str(f) for f in lint_world(loaded)] == [
        "variables[0].defaultValue: must be between 0 and 100, got -5"
    ]


def test_an_empty_greeting_is_an_error():
    data = with_entry(role="greeting", content=" \n ")

    assert found(data, "empty-greeting") == [
        ("error", "entries[3].content", "the greeting is empty")
    ]


def test_duplicate_ids_are_errors_in_every_list():
    data = world(entryFolders=[{"id": "f"}, {"id": "f"}])
    data["entries"].append({"id": "narrator", "content": "again"})

    assert [(f.code, str(f)) for f in lint_source(data)] == [
        ("duplicate-id", "entries[3].id: duplicate id 'narrator' (first used at entries[0])")
    ]
    built = WorldDefinition.model_validate(world(components=[{"id": "c", "type": "x"}] * 2))
    assert [str(f) for f in lint_world(built) if f.code == "duplicate-id"] == [
        "components[1].id: duplicate id 'c' (first used at components[0])"
    ]
    folders = WorldDefinition.model_validate(world(entryFolders=[{"id": "f"}, {"id": "f"}]))
    assert [f.path for f in lint_world(folders) if f.code == "duplicate-id"] == [
        "entryFolders[1].id"
    ]


def test_what_stops_a_world_loading_is_an_invalid_finding():
    findings = lint_source({"name": "", "entries": [{"id": "Bad Id"}]})

    assert [(f.severity, f.code, f.path) for f in findings] == [
        ("error", "invalid", "name"),
        ("error", "invalid", "entries[0].id"),
    ]


def test_game_master_exits_to_missing_locations_are_errors():
    data = world(
        gameMaster={
            "locations": [
                {"id": "gate", "name": "Gate", "exits": [{"direction": "north", "to": "keep"}]}
            ]
        }
    )

    assert found(data, "game-master") == [
        ("error", "gameMaster.locations[0].exits[0].to", "unknown location 'keep'")
    ]


# --- warnings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "path", "message"),
    [
        ({"section": "chat-history", "keywords": [" "]}, "entries[3].keywords",
         "a chat-history entry with no keywords and no conditions never fires"),
        ({"enabled": False}, "entries[3].enabled",
         "it is disabled and no rule or reaction enables it"),
        ({"conditions": [{"variableId": "hp", "operator": "gt", "value": 100}]},
         "entries[3].conditions", "hp gt 100 never holds: hp stays within 0..100"),
        ({"conditions": [{"variableId": "lit", "operator": "gt", "value": 1}]},
         "entries[3].conditions", "lit gt 1 never holds for a boolean"),
    ],
)  # fmt: skip
def test_entries_that_can_never_fire_are_warned_about(entry, path, message):
    assert found(with_entry(content="x", **entry), "entry-never-fires") == [
        ("warning", path, message)
    ]


def test_a_disabled_entry_a_rule_enables_is_not_warned_about():
    data = with_entry(content="x", enabled=False)
    data["rules"][0]["actions"].append({"type": "toggle-entry", "entryId": "extra"})

    assert found(data, "entry-never-fires") == []


def test_any_logic_warns_only_when_no_condition_can_hold():
    possible = {"variableId": "hp", "operator": "lt", "value": 10}
    impossible = {"variableId": "hp", "operator": "lt", "value": 0}
    data = with_entry(content="x", conditions=[possible, impossible], conditionLogic="any")

    assert found(data, "entry-never-fires") == []


def test_a_scan_depth_of_zero_silences_every_keyword_entry():
    data = world(settings={"lorebookScanDepth": 0})

    assert found(data, "entry-never-fires") == [
        ("warning", "settings.lorebookScanDepth",
         "0 scans no message, so 1 keyword entries can never fire"),
    ]  # fmt: skip


def test_an_entry_over_8000_tokens_is_warned_about():
    assert found(with_entry(content="word " * 7000), "entry-too-large") == [
        ("warning", "entries[3].content", "about 8,750 tokens, over 8,000: split it or trim it")
    ]
    assert found(with_entry(content="word " * 6000), "entry-too-large") == []


def test_an_unknown_folder_is_warned_about():
    assert found(with_entry(content="x", folderId="lore"), "unknown-folder") == [
        ("warning", "entries[3].folderId", "no folder 'lore'")
    ]


def test_a_directive_naming_no_variable_in_an_entry_is_warned_about():
    data = with_entry(content="Write [hp: -5] or [mana: +2] after a fight.")

    assert found(data, "directive-unknown-variable") == [
        (
            "warning",
            "entries[3].content",
            "a directive names no variable 'mana'; it stays in the text",
        )
    ]


def test_a_variable_nothing_reads_or_writes_is_warned_about():
    data = world()
    data["variables"].append({"id": "gold", "type": "number"})

    assert found(data, "variable-unused") == [
        (
            "warning",
            "variables[2]",
            "nothing reads or writes it (no condition, trigger, action, macro or directive)",
        )
    ]


@pytest.mark.parametrize(
    "use",
    [
        {"entries": [{"id": "e", "content": "You have {{gold}} coins."}]},
        {"entries": [{"id": "e", "content": "Pay: [gold: -5]"}]},
        {"entries": [{"id": "e", "content": "{{getvar::gold}}"}]},
        {"components": [{"id": "c", "type": "gauge", "variableId": "gold"}]},
        {"rootComponent": {"files": {"index.tsx": "api.variables['gold']"}}},
        {"rules": [{"id": "r", "trigger": {"type": "every-turn"},
                    "actions": [{"type": "modify-variable", "variableId": "gold", "value": 1}]}]},
        {"reactions": [{"id": "r", "when": {"eventType": "x"},
                        "then": [{"type": "set", "path": "gold", "value": 1}]}]},
    ],
    ids=["macro", "directive", "getvar", "component", "custom-ui", "rule", "reaction"],
)  # fmt: skip
def test_any_read_or_write_counts_as_a_use(use):
    data = world(**use)
    data["variables"] = [{"id": "gold", "type": "number"}]

    assert found(data, "variable-unused") == []


@pytest.mark.parametrize(
    ("rule", "path", "message"),
    [
        ({"trigger": {"type": "every-turn"}, "enabled": False}, "rules[1].enabled",
         "it is disabled and no rule or reaction enables it"),
        ({"trigger": {"type": "every-turn"}, "maxFireCount": 0}, "rules[1].maxFireCount",
         "0 lets it fire no time at all"),
        ({"trigger": {"type": "ai-keyword", "keywords": []}}, "rules[1].trigger.keywords",
         "a keyword trigger with no keywords never fires"),
        ({"trigger": {"type": "turn-count", "atTurn": 0}}, "rules[1].trigger",
         "no turn is ever counted: set atTurn (from 1) or everyNTurns"),
        ({"trigger": {"type": "action", "actionId": "open-door"}}, "rules[1].trigger.actionId",
         "no custom UI sends this action; only a hand-made client could"),
        ({"trigger": {"type": "variable-crossed", "variableId": "hp",
                      "direction": "rises-above", "threshold": 100}},
         "rules[1].trigger.threshold", "'hp' never goes above 100"),
        ({"trigger": {"type": "variable-crossed", "variableId": "lit",
                      "direction": "drops-below", "threshold": 1}},
         "rules[1].trigger.threshold", "a boolean variable never crosses a number"),
        ({"trigger": {"type": "every-turn"},
          "conditions": [{"variableId": "hp", "operator": "eq", "value": "full"}]},
         "rules[1].conditions", 'hp eq "full" never holds for a number'),
    ],
)  # fmt: skip
def test_rules_that_can_never_trigger_are_warned_about(rule, path, message):
    assert found(with_rule(**rule), "rule-never-fires") == [("warning", path, message)]


def test_rules_that_may_trigger_are_not_warned_about():
    data = world(rootComponent={"files": {"index.tsx": "run(id)"}})
    data["rules"] += [
        {"id": "act", "trigger": {"type": "action", "actionId": "open-door"}},
        {"id": "off", "trigger": {"type": "manual"}, "enabled": False},
        {"id": "on", "trigger": {"type": "session-start"},
         "actions": [{"type": "toggle-rule", "ruleId": "off", "enabled": True}]},
    ]  # fmt: skip

    assert found(data, "rule-never-fires") == []


def test_unreachable_conditional_bgm_is_warned_about():
    data = world(
        conditionalBGM=[
            {"id": "a", "targetTrackId": "wind",
             "conditions": [{"variableId": "fear", "operator": "gt", "value": 5}]},
            {"id": "b", "targetTrackId": "wind",
             "conditions": [{"variableId": "hp", "operator": "lt", "value": -1}]},
            {"id": "c", "targetTrackId": "wind", "triggerType": "keyword"},
            {"id": "d", "targetTrackId": "wind", "triggerType": "turn-count"},
            {"id": "e", "targetTrackId": "wind",
             "conditions": [{"variableId": "hp", "operator": "lt", "value": 30}]},
        ]
    )  # fmt: skip

    assert found(data, "bgm-unreachable") == [
        ("warning", "conditionalBGM[0].conditions[0].variableId",
         "unknown variable 'fear': it never plays"),
        ("warning", "conditionalBGM[1].conditions",
         "hp lt -1 never holds: hp stays within 0..100: it never plays"),
        ("warning", "conditionalBGM[2].keywords", "no keywords: it never plays"),
        ("warning", "conditionalBGM[3].atTurn",
         "no turn is ever counted: set atTurn (from 1) or everyNTurns"),
    ]  # fmt: skip


def test_state_above_the_cache_breakpoint_is_warned_about():
    data = world()
    data["entries"][0]["content"] = "It is {{time}}. HP {{hp}}. {{random::a::b}} {{char}}"
    data["variables"][0]["description"] = "Roll {{roll::1d6}}"
    data["entries"] += [
        {"id": "ex", "section": "examples", "content": "{{user}}: hi\n{{char}}: {{lastMessage}}"},
        {"id": "gated", "content": "{{hp}}", "conditions": [
            {"variableId": "hp", "operator": "gt", "value": 1}]},
        {"id": "after", "section": "post-history", "content": "{{hp}}"},
    ]  # fmt: skip

    assert [(f.path, f.message.split(" changes")[0]) for f in lint_source(data)
            if f.code == "cache-breakpoint-moves"] == [
        ("entries[0].content", "{{time}}, {{hp}}, {{random::a::b}}"),
        ("entries[3].content", "{{lastMessage}}"),
        ("variables[0].description", "{{roll::1d6}}"),
    ]  # fmt: skip


# --- the API -----------------------------------------------------------------------------


def test_errors_come_first_in_document_order_and_have_json_paths():
    data = with_rule(trigger={"type": "every-turn"}, enabled=False,
                     actions=[{"type": "toggle-entry", "entryId": "nope"}])  # fmt: skip
    data["entries"][1]["content"] = ""

    findings = lint_source(data)

    assert [(f.severity, f.path) for f in findings] == [
        ("error", "entries[1].content"),
        ("error", "rules[1].actions[0].entryId"),
        ("warning", "rules[1].enabled"),
    ]
    assert has_errors(findings)
    assert findings[0].to_dict() == {
        "severity": "error",
        "code": "empty-greeting",
        "path": "entries[1].content",
        "message": "the greeting is empty",
    }
    assert not has_errors([Finding("warning", "x", "y", "z")])
