"""Rules and reactions (seed 004 "规则与响应", "Reactions", "系统效果路径", "每轮生成的事件")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine import events as ev
from engine.events import Event
from engine.rules import (
    MAX_GENERATIONS,
    compile_rules,
    expire_directives,
    fire_rule,
    run_rules,
)
from engine.session import InjectedDirective, SessionState
from engine.world import WorldDefinition, load_world

VARIABLES = [
    {"id": "health", "type": "number", "defaultValue": 100, "min": 0, "max": 100},
    {"id": "gold", "type": "number", "defaultValue": 0},
    {"id": "counter", "type": "number", "defaultValue": 0},
    {"id": "mood", "name": "Mood", "type": "string", "defaultValue": "calm"},
    {"id": "weather", "type": "string", "defaultValue": "clear"},
    {"id": "has-key", "type": "boolean", "defaultValue": False},
    {"id": "npcs", "type": "json", "defaultValue": {"aria": {"trust": 50}}},
]
TRACKS = [
    {"id": "bgm-battle", "type": "bgm"},
    {"id": "bgm-calm", "type": "bgm"},
    {"id": "sfx-sword", "type": "sfx"},
    {"id": "forest-ambient", "type": "ambient"},
]
ENTRIES = [
    {"id": "secret-lore", "section": "chat-history", "keywords": ["secret"], "enabled": False},
    {"id": "tavern", "section": "chat-history", "keywords": ["tavern"]},
]


def make_world(
    rules: list[dict[str, Any]] | None = None, reactions: list[dict[str, Any]] | None = None
) -> WorldDefinition:
    return load_world(
        {
            "name": "Rules test",
            "variables": VARIABLES,
            "audioTracks": TRACKS,
            "entries": ENTRIES,
            "rules": rules or [],
            "reactions": reactions or [],
        }
    )


def rule(rule_id: str, trigger: dict[str, Any], *actions: dict[str, Any], **extra: Any) -> dict:
    return {"id": rule_id, "trigger": trigger, "actions": list(actions), **extra}


def notify(message: str, style: str = "info") -> dict[str, Any]:
    return {"type": "notify-player", "message": message, "style": style}


def modify(variable_id: str, operation: str, value: Any) -> dict[str, Any]:
    return {
        "type": "modify-variable",
        "variableId": variable_id,
        "operation": operation,
        "value": value,
    }


def reaction(reaction_id: str, when: dict[str, Any], *then: dict[str, Any], **extra: Any) -> dict:
    return {"id": reaction_id, "when": when, "then": list(then), **extra}


def set_(path: str, value: Any, operation: str = "set") -> dict[str, Any]:
    return {"type": "set", "path": path, "value": value, "operation": operation}


def fresh(world: WorldDefinition, turn: int = 1, **values: Any) -> SessionState:
    state = SessionState.initial(world, values)
    state.turn = turn
    state.started = True
    return state


def changed(variable_id: str, old: Any, new: Any) -> Event:
    return ev.state_changed(variable_id, old, new)


def messages(outcome: Any) -> list[str]:
    return [n.message for n in outcome.notifications]


# --- triggers ---------------------------------------------------------------------------


LOW_HEALTH = rule(
    "low-health",
    {
        "type": "variable-crossed",
        "variableId": "health",
        "direction": "drops-below",
        "threshold": 20,
    },
    notify("Your vision blurs.", "warning"),
)


@pytest.mark.parametrize(
    ("old", "new", "fires"),
    [
        (100, 15, True),
        (20, 15, True),  # from exactly the threshold, downwards
        (25, 20, False),  # landing on the threshold is not below it
        (15, 10, False),  # already below
        (10, 30, False),  # wrong direction
        ("100", 15, False),  # not a number
    ],
)
def test_variable_crossed_drops_below_fires_only_when_crossing(
    old: Any, new: Any, fires: bool
) -> None:
    world = make_world([LOW_HEALTH])
    outcome = run_rules(world, fresh(world), [changed("health", old, new)])
    assert outcome.fired == (["low-health"] if fires else [])


@pytest.mark.parametrize(("old", "new", "fires"), [(40, 51, True), (50, 60, True), (45, 50, False)])
def test_variable_crossed_rises_above(old: int, new: int, fires: bool) -> None:
    trigger = {
        "type": "variable-crossed",
        "variableId": "gold",
        "direction": "rises-above",
        "threshold": 50,
    }
    world = make_world([rule("rich", trigger, notify("Rich!"))])
    outcome = run_rules(world, fresh(world), [changed("gold", old, new)])
    assert outcome.fired == (["rich"] if fires else [])


def test_variable_crossed_ignores_other_variables() -> None:
    world = make_world([LOW_HEALTH])
    assert run_rules(world, fresh(world), [changed("gold", 100, 10)]).fired == []


def test_state_change_fires_for_any_variable_or_only_the_named_one() -> None:
    world = make_world(
        [
            rule("any", {"type": "state-change"}, notify("any")),
            rule("gold-only", {"type": "state-change", "variableId": "gold"}, notify("gold")),
        ]
    )
    assert run_rules(world, fresh(world), [changed("mood", "a", "b")]).fired == ["any"]
    both = run_rules(world, fresh(world), [changed("gold", 1, 2)])
    assert sorted(both.fired) == ["any", "gold-only"]


@pytest.mark.parametrize(
    ("turn", "fired"), [(1, []), (3, ["at-3"]), (4, ["every-2"]), (6, ["every-2"])]
)
def test_turn_count_at_turn_and_every_n_turns(turn: int, fired: list[str]) -> None:
    world = make_world(
        [
            rule("at-3", {"type": "turn-count", "atTurn": 3}, notify("three")),
            rule("every-2", {"type": "turn-count", "everyNTurns": 2}, notify("even")),
        ]
    )
    state = fresh(world, turn=turn)
    assert run_rules(world, state, [ev.turn_complete(turn)]).fired == fired


def test_session_start_fires_only_on_the_session_start_event() -> None:
    world = make_world([rule("hello", {"type": "session-start"}, notify("Welcome"))])
    assert run_rules(world, fresh(world), [ev.message_user("hi")]).fired == []
    outcome = run_rules(world, fresh(world), [ev.session_start(), ev.message_user("hi")])
    assert outcome.fired == ["hello"]
    assert messages(outcome) == ["Welcome"]


@pytest.mark.parametrize(
    ("text", "whole", "fires"),
    [
        ("I draw my SWORD", False, True),
        ("a swordfish swims by", False, True),
        ("a swordfish swims by", True, False),
        ("the sword, gleaming", True, True),
        ("我拔出剑来", True, True),  # CJK has no word edges: matches inside the sentence
        ("I wave", False, False),
        ("the old\nmill", True, True),  # whitespace in a keyword matches any whitespace
    ],
)
def test_keyword_trigger_matches_player_message(text: str, whole: bool, fires: bool) -> None:
    trigger = {"type": "keyword", "keywords": ["sword", "剑", "old mill"], "matchWholeWords": whole}
    world = make_world([rule("kw", trigger, notify("steel"))])
    assert run_rules(world, fresh(world), [ev.message_user(text)]).fired == (
        ["kw"] if fires else []
    )


def test_keyword_trigger_ignores_ai_reply_and_ai_keyword_ignores_player() -> None:
    world = make_world(
        [
            rule("player", {"type": "keyword", "keywords": ["dragon"]}, notify("p")),
            rule("narrator", {"type": "ai-keyword", "keywords": ["dragon"]}, notify("n")),
        ]
    )
    assert run_rules(world, fresh(world), [ev.message_ai("A Dragon lands.")]).fired == ["narrator"]
    assert run_rules(world, fresh(world), [ev.message_user("dragon?")]).fired == ["player"]


def test_every_turn_fires_after_each_turn() -> None:
    world = make_world([rule("tick", {"type": "every-turn"}, notify("tick"))])
    state = fresh(world)
    for turn in (1, 2, 3):
        state.turn = turn
        assert run_rules(world, state, [ev.turn_complete(turn)]).fired == ["tick"]
    assert state.fire_counts == {"tick": 3}


def test_action_trigger_needs_its_action_id() -> None:
    world = make_world([rule("door", {"type": "action", "actionId": "open-door"}, notify("creak"))])
    assert run_rules(world, fresh(world), [ev.action("knock")]).fired == []
    assert run_rules(world, fresh(world), [ev.action("open-door")]).fired == ["door"]


MANUAL = rule("trap", {"type": "manual"}, notify("A trap springs!", "danger"))


def test_manual_rule_never_fires_on_its_own() -> None:
    world = make_world([MANUAL])
    events = [
        ev.session_start(),
        ev.message_user("trap"),
        ev.message_ai("trap"),
        ev.turn_complete(1),
        changed("health", 100, 50),
        ev.action("trap"),
    ]
    assert run_rules(world, fresh(world), events).fired == []


def test_manual_rule_fires_through_fire_rule() -> None:
    world = make_world([MANUAL])
    outcome = fire_rule(world, fresh(world), "trap")
    assert outcome.fired == ["trap"]
    assert [(n.message, n.style, n.source) for n in outcome.notifications] == [
        ("A trap springs!", "danger", "rule:trap")
    ]


def test_fire_rule_with_unknown_id_is_skipped() -> None:
    world = make_world([MANUAL])
    outcome = fire_rule(world, fresh(world), "nope")
    assert outcome.fired == []
    assert [s.reason for s in outcome.skipped] == ["unknown rule 'nope'"]


def test_another_rule_fires_a_manual_rule_by_enabling_it() -> None:
    chain = rule(
        "spring-trap",
        {"type": "keyword", "keywords": ["lever"]},
        {"type": "toggle-rule", "ruleId": "trap", "enabled": True},
    )
    world = make_world([chain, MANUAL])
    outcome = run_rules(world, fresh(world), [ev.message_user("I pull the lever")])
    assert outcome.fired == ["spring-trap", "trap"]


def test_a_reaction_fires_a_manual_rule_with_a_rule_fire_event() -> None:
    react = reaction(
        "pull",
        {"eventType": "message:user"},
        {"type": "emit", "event": {"type": "rule:fire", "ruleId": "trap"}},
    )
    world = make_world([MANUAL], [react])
    assert run_rules(world, fresh(world), [ev.message_user("x")]).fired == ["trap"]


# --- conditions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("logic", "health", "gold", "fires"),
    [
        ("all", 10, 5, True),
        ("all", 10, 0, False),
        ("any", 90, 5, True),
        ("any", 90, 0, False),
    ],
)
def test_conditions_all_and_any(logic: str, health: int, gold: int, fires: bool) -> None:
    conditions = [
        {"variableId": "health", "operator": "lt", "value": 50},
        {"variableId": "gold", "operator": "gt", "value": 0},
    ]
    world = make_world(
        [
            rule(
                "tick",
                {"type": "every-turn"},
                notify("x"),
                conditions=conditions,
                conditionLogic=logic,
            )
        ]
    )
    state = fresh(world, health=health, gold=gold)
    outcome = run_rules(world, state, [ev.turn_complete(1)])
    assert outcome.fired == (["tick"] if fires else [])
    if not fires:
        assert "rule:tick: not fired on turn:complete(1): conditions not met" in outcome.log


# --- actions ------------------------------------------------------------------------------


def test_modify_variable_changes_state_and_emits_state_changed() -> None:
    world = make_world(
        [
            rule(
                "hunger",
                {"type": "every-turn"},
                modify("health", "subtract", 85),
            ),
            LOW_HEALTH,
        ]
    )
    state = fresh(world)
    outcome = run_rules(world, state, [ev.turn_complete(1)])
    assert state.values["health"] == 15
    assert [(c.variable_id, c.old, c.new) for c in outcome.changes] == [("health", 100, 15)]
    assert outcome.fired == ["hunger", "low-health"]  # the change crossed the threshold


def test_modify_variable_on_a_dot_path_and_by_name() -> None:
    world = make_world(
        [
            rule(
                "trust",
                {"type": "every-turn"},
                modify("npcs.aria.trust", "add", 5),
                {"type": "modify-variable", "variableId": "Mood", "value": "happy"},
            )
        ]
    )
    state = fresh(world)
    run_rules(world, state, [ev.turn_complete(1)])
    assert state.values["npcs"] == {"aria": {"trust": 55}}
    assert state.values["mood"] == "happy"


def test_modify_variable_that_does_not_fit_is_skipped() -> None:
    world = make_world(
        [
            rule(
                "bad",
                {"type": "every-turn"},
                modify("has-key", "add", 1),
                {"type": "modify-variable", "variableId": "ghost", "value": 1},
            )
        ]
    )
    state = fresh(world)
    outcome = run_rules(world, state, [ev.turn_complete(1)])
    assert outcome.changes == []
    assert [s.reason for s in outcome.skipped] == [
        "add does not apply to boolean variable 'has-key'",
        "unknown variable 'ghost'",
    ]
    assert state.values["has-key"] is False


@pytest.mark.parametrize(
    ("extra", "expires"),
    [
        ({"persistent": True}, None),
        ({"persistent": False}, 2),  # one-shot: the next prompt only
        ({}, 2),
        ({"persistent": True, "duration": 3}, 4),  # turns 2, 3, 4
    ],
)
def test_inject_directive_lifetimes(extra: dict[str, Any], expires: int | None) -> None:
    action = {
        "type": "inject-directive",
        "directiveId": "critical",
        "content": "The player is near death.",
        "position": "after_char",
        **extra,
    }
    world = make_world([rule("inject", {"type": "every-turn"}, action)])
    state = fresh(world, turn=1)
    run_rules(world, state, [ev.turn_complete(1)])
    directive = state.directives["critical"]
    assert (directive.content, directive.position) == ("The player is near death.", "after_char")
    assert directive.expires_after_turn == expires


@pytest.mark.parametrize(
    "position", ["top", "before_char", "after_char", "auto", "depth", "bottom"]
)
def test_inject_directive_keeps_each_position(position: str) -> None:
    action = {"type": "inject-directive", "directiveId": "d", "content": "x", "position": position}
    if position == "depth":
        action["depth"] = 2
    world = make_world([rule("inject", {"type": "every-turn"}, action)])
    state = fresh(world)
    run_rules(world, state, [ev.turn_complete(1)])
    assert state.directives["d"].position == position
    assert state.directives["d"].depth == (2 if position == "depth" else None)


def test_directives_expire_after_their_last_turn() -> None:
    actions = [
        {"type": "inject-directive", "directiveId": "once", "content": "a"},
        {"type": "inject-directive", "directiveId": "two", "content": "b", "duration": 2},
        {"type": "inject-directive", "directiveId": "keep", "content": "c", "persistent": True},
    ]
    world = make_world([rule("inject", {"type": "session-start"}, *actions)])
    state = fresh(world, turn=1)
    run_rules(world, state, [ev.session_start()])  # after turn 1: first seen by turn 2
    assert expire_directives(state, 1) == []
    assert expire_directives(state, 2) == ["once"]
    assert expire_directives(state, 3) == ["two"]
    assert sorted(state.directives) == ["keep"]


def test_inject_before_the_prompt_lives_through_this_turn() -> None:
    action = {"type": "inject-directive", "directiveId": "now", "content": "x"}
    world = make_world([rule("inject", {"type": "keyword", "keywords": ["x"]}, action)])
    state = fresh(world, turn=4)
    run_rules(world, state, [ev.message_user("x")], next_prompt_turn=4)
    assert state.directives["now"].expires_after_turn == 4


def test_remove_directive() -> None:
    world = make_world(
        [
            rule(
                "rm",
                {"type": "every-turn"},
                {"type": "remove-directive", "directiveId": "critical"},
            )
        ]
    )
    state = fresh(world)
    state.directives["critical"] = InjectedDirective(id="critical", content="x", persistent=True)
    outcome = run_rules(world, state, [ev.turn_complete(1)])
    assert state.directives == {}
    assert "rule:rm: removed 'critical'" in outcome.log


@pytest.mark.parametrize("style", ["info", "achievement", "warning", "danger"])
def test_notify_player_keeps_its_style(style: str) -> None:
    world = make_world([rule("n", {"type": "every-turn"}, notify("Hey", style))])
    outcome = run_rules(world, fresh(world), [ev.turn_complete(1)])
    assert [(n.message, n.style) for n in outcome.notifications] == [("Hey", style)]


def test_play_audio_emits_a_cue_and_remembers_the_bgm() -> None:
    world = make_world(
        [
            rule(
                "battle",
                {"type": "every-turn"},
                {"type": "play-audio", "trackId": "bgm-battle", "action": "play"},
                {"type": "play-audio", "trackId": "sfx-sword"},
                {"type": "play-audio", "trackId": "no-such-track"},
            )
        ]
    )
    state = fresh(world)
    outcome = run_rules(world, state, [ev.turn_complete(1)])
    assert [(a.track_id, a.action, a.source) for a in outcome.audio] == [
        ("bgm-battle", "play", "rule:battle"),
        ("sfx-sword", "play", "rule:battle"),
    ]
    assert state.audio == {"bgm": "bgm-battle"}
    assert [s.reason for s in outcome.skipped] == ["unknown audio track 'no-such-track'"]


def test_toggle_entry_sets_the_session_toggle() -> None:
    world = make_world(
        [
            rule(
                "reveal",
                {"type": "every-turn"},
                {"type": "toggle-entry", "entryId": "secret-lore", "enabled": True},
                {"type": "toggle-entry", "entryId": "tavern", "enabled": False},
            )
        ]
    )
    state = fresh(world)
    assert not state.entry_enabled(world, "secret-lore")
    run_rules(world, state, [ev.turn_complete(1)])
    assert state.entry_toggles == {"secret-lore": True, "tavern": False}
    assert state.entry_enabled(world, "secret-lore")


def test_toggle_rule_disables_and_enables_other_rules() -> None:
    world = make_world(
        [
            rule(
                "phase-1",
                {"type": "keyword", "keywords": ["phase two"]},
                {"type": "toggle-rule", "ruleId": "phase-2", "enabled": True},
                {"type": "toggle-rule", "ruleId": "phase-1", "enabled": False},
                priority=10,
            ),
            rule("phase-2", {"type": "every-turn"}, notify("phase 2"), enabled=False),
        ]
    )
    state = fresh(world)
    assert run_rules(world, state, [ev.turn_complete(1)]).fired == []
    run_rules(world, state, [ev.message_user("on to phase two")])
    assert state.rule_toggles == {"phase-2": True, "phase-1": False}
    state.turn = 2
    assert run_rules(world, state, [ev.message_user("phase two"), ev.turn_complete(2)]).fired == [
        "phase-2"
    ]


def test_send_context_queues_one_shot_context_with_its_role() -> None:
    world = make_world(
        [
            rule(
                "ctx",
                {"type": "every-turn"},
                {"type": "send-context", "message": "A hidden event happened."},
                {"type": "send-context", "message": "(I look around.)", "role": "user"},
            )
        ]
    )
    state = fresh(world)
    run_rules(world, state, [ev.turn_complete(1)])
    assert [(c.role, c.content) for c in state.pending_context] == [
        ("system", "A hidden event happened."),
        ("user", "(I look around.)"),
    ]


# --- priority, cooldown, max fire count, enabled -------------------------------------------


def test_higher_priority_fires_first_and_its_effects_are_seen_by_the_next() -> None:
    world = make_world(
        [
            rule(
                "low",
                {"type": "every-turn"},
                notify("low"),
                priority=1,
                conditions=[{"variableId": "has-key", "operator": "eq", "value": True}],
            ),
            rule("mid", {"type": "every-turn"}, notify("mid"), priority=5),
            rule(
                "high",
                {"type": "every-turn"},
                notify("high"),
                {"type": "modify-variable", "variableId": "has-key", "value": True},
                priority=50,
            ),
        ]
    )
    outcome = run_rules(world, fresh(world), [ev.turn_complete(1)])
    assert outcome.fired == ["high", "mid", "low"]
    assert messages(outcome) == ["high", "mid", "low"]


def test_equal_priority_keeps_world_order() -> None:
    world = make_world([rule(f"r{i}", {"type": "every-turn"}, notify(str(i))) for i in (3, 1, 2)])
    assert run_rules(world, fresh(world), [ev.turn_complete(1)]).fired == ["r3", "r1", "r2"]


def test_cooldown_turns_between_firings() -> None:
    world = make_world([rule("c", {"type": "every-turn"}, notify("c"), cooldownTurns=2)])
    state = fresh(world)
    fired = []
    for turn in range(1, 7):
        state.turn = turn
        if run_rules(world, state, [ev.turn_complete(turn)]).fired:
            fired.append(turn)
    assert fired == [1, 3, 5]
    assert state.last_fired_turn == {"c": 5}


def test_max_fire_count_limits_total_firings() -> None:
    world = make_world([rule("m", {"type": "every-turn"}, notify("m"), maxFireCount=2)])
    state = fresh(world)
    fired = []
    for turn in range(1, 5):
        state.turn = turn
        outcome = run_rules(world, state, [ev.turn_complete(turn)])
        fired.append(outcome.fired)
    assert fired == [["m"], ["m"], [], []]
    assert "rule:m: not fired on turn:complete(4): already fired 2 of 2 times" in outcome.log


def test_disabled_rule_does_not_fire_unless_toggled_on() -> None:
    world = make_world([rule("off", {"type": "every-turn"}, notify("x"), enabled=False)])
    state = fresh(world)
    assert run_rules(world, state, [ev.turn_complete(1)]).fired == []
    state.rule_toggles["off"] = True
    assert run_rules(world, state, [ev.turn_complete(1)]).fired == ["off"]


def test_a_rule_fires_once_per_generation_even_for_several_events() -> None:
    world = make_world([rule("any", {"type": "state-change"}, notify("changed"))])
    events = [changed("gold", 0, 1), changed("mood", "a", "b")]
    assert run_rules(world, fresh(world), events).fired == ["any"]


# --- chains ------------------------------------------------------------------------------


def test_a_rule_loop_through_state_changes_stops_too() -> None:
    world = make_world(
        [
            rule(
                "grow",
                {"type": "state-change", "variableId": "counter"},
                modify("counter", "add", 1),
            )
        ]
    )
    state = fresh(world)
    outcome = run_rules(world, state, [changed("counter", -1, 0)])
    assert state.values["counter"] == MAX_GENERATIONS
    assert outcome.warnings


def test_a_fan_out_of_emitted_events_stops_too() -> None:
    double = {"type": "emit", "event": {"type": "boom"}}
    world = make_world([], [reaction("boom", {"eventType": "boom"}, double, double)])
    outcome = run_rules(world, fresh(world), [Event("boom")])
    assert outcome.warnings
    assert len(outcome.reactions) < 2000


def test_a_chain_that_settles_reports_no_warning() -> None:
    world = make_world([LOW_HEALTH], [reaction("r", {"eventType": "go"}, set_("health", 10))])
    outcome = run_rules(world, fresh(world), [Event("go")])
    assert outcome.fired == ["low-health"]
    assert outcome.warnings == []


# --- compiled cache and resuming ------------------------------------------------------------


def test_compiled_rules_are_cached_by_content_hash() -> None:
    world = make_world([LOW_HEALTH])
    same = make_world([LOW_HEALTH])
    assert compile_rules(world) is compile_rules(same)
    assert compile_rules(make_world([MANUAL])) is not compile_rules(world)


GAME_RULES = [
    rule(
        "tick",
        {"type": "every-turn"},
        modify("health", "subtract", 9),
        {
            "type": "inject-directive",
            "directiveId": "pulse",
            "content": "{{health}}",
            "duration": 2,
        },
    ),
    rule("third", {"type": "turn-count", "everyNTurns": 3}, notify("third"), cooldownTurns=4),
    rule("twice", {"type": "keyword", "keywords": ["gold"]}, notify("gold"), maxFireCount=2),
    LOW_HEALTH,
]
GAME_REACTIONS = [
    reaction(
        "drain",
        {"eventType": "state:changed", "variableId": "health"},
        set_("counter", 1, "add"),
        set_("@prompt.context", "pulse"),
    )
]


def play_turns(world: WorldDefinition, state: SessionState, turns: range) -> list[Any]:
    trace = []
    for turn in turns:
        state.turn = turn
        events = [ev.message_user("gold!"), ev.message_ai("..."), ev.turn_complete(turn)]
        outcome = run_rules(world, state, events)
        expire_directives(state, turn)
        state.pending_context = []
        trace.append((outcome.fired, outcome.reactions, messages(outcome)))
    return trace


def test_a_session_saved_mid_game_resumes_identically() -> None:
    world = make_world(GAME_RULES, GAME_REACTIONS)
    straight = fresh(world, turn=0)
    expected = play_turns(world, straight, range(1, 13))

    first = fresh(world, turn=0)
    trace = play_turns(world, first, range(1, 6))
    saved = json.dumps(first.model_dump(mode="json"))
    resumed = SessionState.model_validate(json.loads(saved))
    trace += play_turns(world, resumed, range(6, 13))

    assert trace == expected
    assert resumed.model_dump() == straight.model_dump()
    assert straight.fire_counts["twice"] == 2
    assert "low-health" in straight.fire_counts
