"""Reactions: event patterns, ``set`` on variables and ``@`` system paths, ``emit`` (seed 004
"Reactions", "系统效果路径")."""

from __future__ import annotations

from typing import Any

import pytest

from engine import events as ev
from engine.events import Event
from engine.reactions import SYSTEM_PATHS, matches, split_target
from engine.rules import MAX_GENERATIONS, run_rules
from engine.world import Reaction
from tests.engine.test_rules import changed, fresh, make_world, notify, reaction, rule, set_

# --- matching -------------------------------------------------------------------------------


def test_reaction_matches_event_type_and_every_when_field() -> None:
    react = reaction(
        "zone-enter-forest",
        {"eventType": "spatial:zone-enter", "zone": "forest"},
        set_("weather", "foggy"),
    )
    world = make_world([], [react])
    state = fresh(world)
    run_rules(world, state, [Event("spatial:zone-enter", {"zone": "desert"})])
    assert state.values["weather"] == "clear"
    outcome = run_rules(world, state, [Event("spatial:zone-enter", {"zone": "forest"})])
    assert state.values["weather"] == "foggy"
    assert outcome.reactions == ["zone-enter-forest"]


def test_reaction_on_state_changed_matches_variable_and_values() -> None:
    react = reaction(
        "rich",
        {"eventType": "state:changed", "variableId": "gold", "newValue": 100},
        set_("mood", "smug"),
    )
    world = make_world([], [react])
    state = fresh(world)
    run_rules(world, state, [changed("gold", 0, 50)])
    assert state.values["mood"] == "calm"
    run_rules(world, state, [changed("gold", 50, 100.0)])
    assert state.values["mood"] == "smug"


def test_reaction_set_with_operation_and_conditions() -> None:
    react = reaction(
        "pay",
        {"eventType": "turn:complete"},
        set_("gold", 10, "add"),
        conditions=[{"variableId": "has-key", "operator": "eq", "value": True}],
    )
    world = make_world([], [react])
    state = fresh(world)
    run_rules(world, state, [ev.turn_complete(1)])
    assert state.values["gold"] == 0
    state.values["has-key"] = True
    run_rules(world, state, [ev.turn_complete(1)])
    assert state.values["gold"] == 10


def test_disabled_reaction_does_not_run() -> None:
    react = reaction("r", {"eventType": "turn:complete"}, set_("gold", 1), enabled=False)
    world = make_world([], [react])
    state = fresh(world)
    run_rules(world, state, [ev.turn_complete(1)])
    assert state.values["gold"] == 0


@pytest.mark.parametrize(
    ("path", "value", "cue"),
    [
        ("@audio.bgm", "bgm-battle", ("bgm-battle", "play")),
        ("@audio.sfx", "sfx-sword", ("sfx-sword", "play")),
        ("@audio.ambient", "forest-ambient", ("forest-ambient", "play")),
        ("@audio.stop", "bgm-calm", ("bgm-calm", "stop")),
        ("@audio.stop", None, ("*", "stop")),
        ("@audio.stop", "all", ("*", "stop")),
    ],
)
def test_reaction_audio_paths(path: str, value: Any, cue: tuple[str, str]) -> None:
    world = make_world([], [reaction("a", {"eventType": "turn:complete"}, set_(path, value))])
    outcome = run_rules(world, fresh(world), [ev.turn_complete(1)])
    assert [(a.track_id, a.action, a.source) for a in outcome.audio] == [(*cue, "reaction:a")]


def test_reaction_audio_remembers_and_stops_channels() -> None:
    world = make_world(
        [],
        [
            reaction("start", {"eventType": "go"}, set_("@audio.ambient", "forest-ambient")),
            reaction("quiet", {"eventType": "hush"}, set_("@audio.ambient", None)),
            reaction("silence", {"eventType": "silence"}, set_("@audio.stop", True)),
        ],
    )
    state = fresh(world)
    run_rules(world, state, [Event("go")])
    assert state.audio == {"ambient": "forest-ambient"}
    outcome = run_rules(world, state, [Event("hush")])
    assert [(a.track_id, a.action) for a in outcome.audio] == [("forest-ambient", "stop")]
    assert state.audio == {"ambient": None}
    run_rules(world, state, [Event("go")])
    run_rules(world, state, [Event("silence")])
    assert state.audio == {}


def test_reaction_prompt_directive_injects_and_removes() -> None:
    world = make_world(
        [],
        [
            reaction("on", {"eventType": "on"}, set_("@prompt.directive.fog", "Fog everywhere.")),
            reaction(
                "on-depth",
                {"eventType": "on"},
                set_(
                    "@prompt.directive.deep",
                    {"content": "Deep.", "position": "depth", "depth": 1, "duration": 2},
                ),
            ),
            reaction("off", {"eventType": "off"}, set_("@prompt.directive.fog", None)),
        ],
    )
    state = fresh(world, turn=1)
    run_rules(world, state, [Event("on")])
    fog, deep = state.directives["fog"], state.directives["deep"]
    assert (fog.content, fog.position, fog.persistent, fog.expires_after_turn) == (
        "Fog everywhere.",
        "auto",
        True,
        None,
    )
    assert (deep.position, deep.depth, deep.expires_after_turn) == ("depth", 1, 3)
    run_rules(world, state, [Event("off")])
    assert sorted(state.directives) == ["deep"]


def test_reaction_prompt_entry_toggles_entries() -> None:
    world = make_world(
        [],
        [
            reaction("show", {"eventType": "show"}, set_("@prompt.entry.secret-lore", True)),
            reaction("flip", {"eventType": "flip"}, set_("@prompt.entry.tavern", None, "toggle")),
            reaction("bad", {"eventType": "bad"}, set_("@prompt.entry.tavern", "maybe")),
        ],
    )
    state = fresh(world)
    run_rules(world, state, [Event("show"), Event("flip")])
    assert state.entry_toggles == {"secret-lore": True, "tavern": False}
    outcome = run_rules(world, state, [Event("bad")])
    assert [s.reason for s in outcome.skipped] == ["@prompt.entry.tavern needs true or false"]


@pytest.mark.parametrize("path", ["@prompt.context", "@ai.context"])
def test_reaction_context_paths_queue_one_shot_context(path: str) -> None:
    world = make_world(
        [],
        [
            reaction(
                "c",
                {"eventType": "turn:complete"},
                set_(path, "The wind rises."),
                set_(path, {"message": "(I shiver.)", "role": "user"}),
            )
        ],
    )
    state = fresh(world)
    run_rules(world, state, [ev.turn_complete(1)])
    assert [(c.role, c.content) for c in state.pending_context] == [
        ("system", "The wind rises."),
        ("user", "(I shiver.)"),
    ]


def test_reaction_rules_disabled_path_disables_and_enables_rules() -> None:
    world = make_world(
        [rule("tick", {"type": "every-turn"}, notify("tick"))],
        [
            reaction("off", {"eventType": "off"}, set_("@rules.disabled.tick", True)),
            reaction("on", {"eventType": "on"}, set_("@rules.disabled.tick", False)),
        ],
    )
    state = fresh(world)
    run_rules(world, state, [Event("off")])
    assert run_rules(world, state, [ev.turn_complete(1)]).fired == []
    run_rules(world, state, [Event("on")])
    assert run_rules(world, state, [ev.turn_complete(1)]).fired == ["tick"]


def test_reaction_ui_notification_accepts_text_or_object() -> None:
    world = make_world(
        [],
        [
            reaction(
                "n",
                {"eventType": "turn:complete"},
                set_("@ui.notification", "Dawn breaks."),
                set_("@ui.notification", {"message": "Level up!", "style": "achievement"}),
            )
        ],
    )
    outcome = run_rules(world, fresh(world), [ev.turn_complete(1)])
    assert [(n.message, n.style, n.source) for n in outcome.notifications] == [
        ("Dawn breaks.", "info", "reaction:n"),
        ("Level up!", "achievement", "reaction:n"),
    ]


def test_reaction_ai_request_sets_the_flag() -> None:
    world = make_world([], [reaction("r", {"eventType": "go"}, set_("@ai.request", True))])
    assert not run_rules(world, fresh(world), [Event("stay")]).requests_ai
    assert run_rules(world, fresh(world), [Event("go")]).requests_ai


def test_reaction_unknown_system_path_is_skipped_with_reason() -> None:
    world = make_world([], [reaction("r", {"eventType": "go"}, set_("@camera.shake", 3))])
    state = fresh(world)
    before = state.model_dump()
    outcome = run_rules(world, state, [Event("go")])
    assert [(s.source, s.reason) for s in outcome.skipped] == [
        ("reaction:r", "unknown system path '@camera.shake'")
    ]
    assert state.model_dump() == before


def test_emit_queues_a_custom_event_for_other_reactions_and_rules() -> None:
    world = make_world(
        [rule("weather-rule", {"type": "state-change", "variableId": "weather"}, notify("fog!"))],
        [
            reaction(
                "enter",
                {"eventType": "spatial:zone-enter", "zone": "forest"},
                set_("weather", "foggy"),
                {"type": "emit", "event": {"type": "spatial:ambience-changed", "to": "forest"}},
            ),
            reaction(
                "ambience",
                {"eventType": "spatial:ambience-changed", "to": "forest"},
                set_("@audio.ambient", "forest-ambient"),
            ),
        ],
    )
    outcome = run_rules(world, fresh(world), [Event("spatial:zone-enter", {"zone": "forest"})])
    assert outcome.reactions == ["enter", "ambience"]
    assert outcome.fired == ["weather-rule"]
    assert [a.track_id for a in outcome.audio] == ["forest-ambient"]


def test_a_reaction_loop_stops_at_the_depth_limit_and_says_so() -> None:
    world = make_world(
        [],
        [
            reaction(
                "ping",
                {"eventType": "ping"},
                set_("counter", 1, "add"),
                {"type": "emit", "event": {"type": "ping"}},
            )
        ],
    )
    state = fresh(world)
    outcome = run_rules(world, state, [Event("ping")])
    assert state.values["counter"] == MAX_GENERATIONS
    assert len(outcome.warnings) == 1
    assert outcome.warnings[0].startswith(
        f"stopped a rule/reaction chain after {MAX_GENERATIONS} event generations"
    )
    assert outcome.warnings[0] in outcome.log


def test_every_system_path_of_the_seed_is_handled() -> None:
    assert sorted(SYSTEM_PATHS) == sorted(
        [
            "@audio.bgm",
            "@audio.sfx",
            "@audio.ambient",
            "@audio.stop",
            "@prompt.directive.<id>",
            "@prompt.entry.<id>",
            "@prompt.context",
            "@rules.disabled.<id>",
            "@ui.notification",
            "@ai.request",
            "@ai.context",
        ]
    )


def when(**fields: Any) -> Reaction:
    return Reaction.model_validate({"id": "r", "when": fields})


def test_matches_needs_the_type_and_every_pattern_field() -> None:
    pattern = when(eventType="turn:complete", turn=3)
    assert matches(pattern, ev.turn_complete(3))
    assert not matches(pattern, ev.turn_complete(4))
    assert not matches(pattern, Event("turn:other", {"turn": 3}))
    assert not matches(when(eventType="go", zone="x"), Event("go"))  # field missing
    assert matches(when(eventType="go"), Event("go", {"zone": "x"}))  # extra data is fine


def test_matches_compares_values_as_json() -> None:
    assert matches(when(eventType="go", n=1), Event("go", {"n": 1.0}))
    assert not matches(when(eventType="go", n=1), Event("go", {"n": True}))
    assert not matches(when(eventType="go", n="1"), Event("go", {"n": 1}))
    assert matches(when(eventType="go", at={"x": [1, 2]}), Event("go", {"at": {"x": [1, 2]}}))


def test_split_target_finds_the_variable_and_the_path() -> None:
    world = make_world()
    assert split_target(world, "health") == ("health", ())
    assert split_target(world, "npcs.aria.trust") == ("npcs", ("aria", "trust"))
    assert split_target(world, "npcs.list.0") == ("npcs", ("list", 0))
    assert split_target(world, "Mood") == ("mood", ())


def test_reaction_set_on_an_unknown_variable_is_skipped() -> None:
    world = make_world([], [reaction("r", {"eventType": "go"}, set_("ghost", 1))])
    outcome = run_rules(world, fresh(world), [Event("go")])
    assert [(s.source, s.reason) for s in outcome.skipped] == [
        ("reaction:r", "unknown variable 'ghost'")
    ]


def test_reaction_set_on_a_json_path() -> None:
    world = make_world([], [reaction("r", {"eventType": "go"}, set_("npcs.aria.trust", 5, "add"))])
    state = fresh(world)
    outcome = run_rules(world, state, [Event("go")])
    assert state.values["npcs"] == {"aria": {"trust": 55}}
    assert [(c.variable_id, c.path, c.old, c.new) for c in outcome.changes] == [
        ("npcs", ("aria", "trust"), 50, 55)
    ]


def test_reactions_run_after_the_rules_of_the_same_event() -> None:
    world = make_world(
        [rule("r", {"type": "every-turn"}, notify("rule"))],
        [reaction("x", {"eventType": "turn:complete"}, set_("@ui.notification", "reaction"))],
    )
    outcome = run_rules(world, fresh(world), [ev.turn_complete(1)])
    assert [n.message for n in outcome.notifications] == ["rule", "reaction"]


def test_state_changes_of_one_generation_make_one_event_per_variable() -> None:
    world = make_world(
        [],
        [
            reaction("twice", {"eventType": "go"}, set_("gold", 1, "add"), set_("gold", 1, "add")),
            reaction(
                "count",
                {"eventType": "state:changed", "variableId": "gold"},
                set_("counter", 1, "add"),
            ),
            reaction(
                "seen",
                {"eventType": "state:changed", "variableId": "gold", "oldValue": 0, "newValue": 2},
                set_("mood", "rich"),
            ),
        ],
    )
    state = fresh(world)
    run_rules(world, state, [Event("go")])
    assert state.values["counter"] == 1
    assert state.values["mood"] == "rich"


def test_a_change_undone_in_the_same_generation_makes_no_event() -> None:
    world = make_world(
        [rule("any", {"type": "state-change"}, notify("changed"))],
        [reaction("flip", {"eventType": "go"}, set_("gold", 5), set_("gold", 0))],
    )
    outcome = run_rules(world, fresh(world), [Event("go")])
    assert len(outcome.changes) == 2
    assert outcome.fired == []
