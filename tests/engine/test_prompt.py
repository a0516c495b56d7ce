"""Prompt assembly in the 13 steps of seed 004, the cache breakpoint, depth and directives."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.macros import MacroContext
from engine.prompt import PromptResult, assemble_prompt, parse_examples
from engine.session import ContextMessage, InjectedDirective, Message, Persona, SessionState
from engine.world import WorldDefinition, load_world

KAI = Persona("Kai", "Tall")

GOLDEN: dict[str, Any] = {
    "name": "Golden",
    "entries": [
        {
            "id": "narrator",
            "section": "system-presets",
            "position": 1,
            "role": "system",
            "content": "You narrate {{char}}'s story for {{user}}.",
        },
        {"id": "fiction", "section": "system-presets", "position": 0, "content": "Fiction mode."},
        {
            "id": "luna",
            "name": "Luna",
            "section": "system-presets",
            "position": 2,
            "role": "character",
            "content": "Luna is a bard.",
        },
        {
            "id": "ooc",
            "section": "system-presets",
            "position": 3,
            "apiRole": "user",
            "content": "(OOC: keep it short)",
        },
        {
            "id": "wounded",
            "section": "system-presets",
            "position": 0,
            "conditions": [{"variableId": "health", "operator": "lt", "value": 30}],
            "content": "{{user}} is badly hurt ({{health}} HP).",
        },
        {
            "id": "secret",
            "section": "system-presets",
            "position": 9,
            "enabled": False,
            "content": "The cellar hides a door.",
        },
        {
            "id": "examples",
            "section": "examples",
            "role": "example",
            "content": (
                "<START>\n{{user}}: Hi.\n{{char}}: Hello, {{user}}.\n"
                "<START>\nKai: Sing?\nLuna: Always.\nShe strums."
            ),
        },
        {
            "id": "tavern",
            "section": "chat-history",
            "role": "lore",
            "keywords": ["tavern"],
            "content": "The Moonlit Tavern is warm.",
        },
        {
            "id": "ale",
            "section": "chat-history",
            "keywords": ["ale"],
            "depth": 0,
            "content": "Ale costs 2 gold.",
        },
        {
            "id": "hint",
            "section": "chat-history",
            "keywords": ["tavern"],
            "depth": 1,
            "apiRole": "user",
            "content": "(Remember the barkeep.)",
        },
        {
            "id": "deep",
            "section": "chat-history",
            "keywords": ["night"],
            "depth": 9,
            "apiRole": "assistant",
            "content": "Night falls early here.",
        },
        {
            "id": "style",
            "section": "post-history",
            "position": 1,
            "content": "Write in second person.",
        },
        {
            "id": "cot",
            "section": "post-history",
            "position": 0,
            "apiRole": "user",
            "content": "Think first.",
        },
        {"id": "hello", "section": "system-presets", "role": "greeting", "content": "Welcome!"},
    ],
    "variables": [
        {
            "id": "health",
            "name": "Health",
            "type": "number",
            "defaultValue": 100,
            "min": 0,
            "max": 100,
            "description": "Physical health",
            "behaviorRules": "0 = death. Punch -5.",
        },
        {"id": "location", "type": "string", "defaultValue": "road"},
    ],
    "audioTracks": [{"id": "bgm-tavern", "name": "Tavern Theme", "type": "bgm"}],
    "rules": [
        {
            "id": "open-cellar",
            "trigger": {"type": "manual"},
            "actions": [{"type": "toggle-entry", "entryId": "secret", "enabled": True}],
        }
    ],
    "settings": {"lorebookScanDepth": 4},
}

STATIC_FORMAT = (
    "<behavior-rules>\n"
    "[health] Health (number, 0 to 100): Physical health\n"
    "0 = death. Punch -5.\n"
    "\n"
    "[location] (string)\n"
    "</behavior-rules>\n"
    "\n"
    "<directive-syntax>\n"
    "Write state changes as bracket directives at the end of your reply, using variable ids; "
    "the engine applies them and hides them from the player.\n"
    '[id: set value] or [id: value] - replace the value (numbers plain, strings in "double '
    'quotes", true/false, JSON inline)\n'
    "[id: +N] / [id: -N] / [id: *N] - add to, subtract from, multiply a number\n"
    "[id: toggle] - flip a boolean\n"
    '[id: append "text"] - add text to the end of a string\n'
    '[id: merge {"key": "value"}] - shallow-merge into a JSON object\n'
    "[id: push value] - append to a JSON array\n"
    '[id: delete "key"] or [id: delete N] - remove a key or an array index\n'
    "[id.path.to.field: op value] - change a nested field of a JSON variable\n"
    "</directive-syntax>\n"
    "\n"
    "<audio-tracks>\n"
    "Control audio with [audio: track-id play], [audio: track-id stop], "
    "[audio: track-id crossfade seconds], [audio: track-id volume 0-1] and "
    "[audio: track-id play chain:next-track-id].\n"
    "- bgm-tavern (bgm): Tavern Theme\n"
    "</audio-tracks>"
)

HISTORY = [
    Message("user", "We enter the tavern at night."),
    Message("assistant", "The barkeep nods."),
    Message("user", "I order an ale."),
]


def golden_state() -> SessionState:
    positions = [
        ("b", "bottom", None),
        ("t", "top", None),
        ("bc", "before_char", None),
        ("ac", "after_char", None),
        ("au", "auto", None),
        ("dp", "depth", 1),
        ("odd", "sideways", None),
    ]
    return SessionState(
        values={"health": 20.0, "location": "tavern"},
        turn=3,
        entry_toggles={"secret": True},
        directives={
            key: InjectedDirective(id=key, content=f"Directive {key}.", position=pos, depth=depth)
            for key, pos, depth in positions
        },
        pending_context=[
            ContextMessage(role="system", content="A bell rings."),
            ContextMessage(role="user", content="(I hear it.)"),
        ],
        compaction_summary="Kai arrived at dusk.",
        session_memory="Kai owes Luna 5 gold.",
    )


def pairs(result: PromptResult) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in result.messages]


def test_golden_prompt_uses_every_section_role_depth_and_directive_position() -> None:
    result = assemble_prompt(load_world(GOLDEN), HISTORY, golden_state(), persona=KAI)
    assert pairs(result) == [
        # 1 system presets by position, adjacent system ones merged; apiRole user kept apart
        ("system", "Fiction mode.\n\nYou narrate Luna's story for Kai.\n\nLuna is a bard."),
        ("user", "(OOC: keep it short)"),
        # 2 persona, 3 static format
        ("system", "<persona>\nName: Kai\nAppearance: Tall\n</persona>"),
        ("system", STATIC_FORMAT),
        # 4 examples
        ("system", "[Example Chat]"),
        ("user", "Hi."),
        ("assistant", "Hello, Kai."),
        ("system", "[Example Chat]"),
        ("user", "Sing?"),
        ("assistant", "Always.\nShe strums."),
        # 5 breakpoint; 6 top, before_char, conditional and toggled presets, keyword lore,
        # after_char
        (
            "system",
            "Directive t.\n\nDirective bc.\n\nKai is badly hurt (20 HP).\n\n"
            "The cellar hides a door.\n\nThe Moonlit Tavern is warm.\n\nDirective ac.",
        ),
        # 7, 8, 9
        ("system", "[Start a new Chat]"),
        ("system", "<story-summary>\nKai arrived at dusk.\n</story-summary>"),
        ("system", "<session-memory>\nKai owes Luna 5 gold.\n</session-memory>"),
        # 10 history: depth 9 reaches past the start, depth 1 before the second-latest,
        # depth 0 just before the latest message
        ("assistant", "Night falls early here."),
        ("user", "We enter the tavern at night."),
        ("user", "(Remember the barkeep.)"),
        ("system", "Directive dp."),
        ("assistant", "The barkeep nods."),
        ("system", "Ale costs 2 gold."),
        ("user", "I order an ale."),
        # 11 auto directives (and unknown positions), then pending context with its role
        ("system", "Directive au.\n\nDirective odd.\n\nA bell rings."),
        ("user", "(I hear it.)"),
        # 12 dynamic format
        ("system", "<current-state>\nhealth: 20\nlocation: tavern\n</current-state>"),
        # 13 post-history by position, then bottom directives
        ("user", "Think first."),
        ("system", "Write in second person.\n\nDirective b."),
    ]
    assert result.breakpoint == 10
    assert result.dropped == []
    assert [f.entry_id for f in result.fired] == [
        "narrator",
        "fiction",
        "luna",
        "ooc",
        "wounded",
        "secret",
        "examples",
        "tavern",
        "ale",
        "hint",
        "deep",
        "style",
        "cot",
    ]


def test_blocks_carry_step_role_tokens_and_source_entry() -> None:
    result = assemble_prompt(load_world(GOLDEN), HISTORY, golden_state(), persona=KAI)
    summary = [(b.step, b.label, b.role, b.entry_id) for b in result.blocks]
    assert summary == [
        (1, "fiction", "system", "fiction"),
        (1, "narrator", "system", "narrator"),
        (1, "Luna", "system", "luna"),
        (1, "ooc", "user", "ooc"),
        (2, "persona", "system", None),
        (3, "static format", "system", None),
        (4, "examples", "system", "examples"),
        (4, "examples", "user", "examples"),
        (4, "examples", "assistant", "examples"),
        (4, "examples", "system", "examples"),
        (4, "examples", "user", "examples"),
        (4, "examples", "assistant", "examples"),
        (6, "directive t (top)", "system", None),
        (6, "directive bc (before_char)", "system", None),
        (6, "wounded", "system", "wounded"),
        (6, "secret", "system", "secret"),
        (6, "tavern", "system", "tavern"),
        (6, "directive ac (after_char)", "system", None),
        (7, "start of chat", "system", None),
        (8, "story summary", "system", None),
        (9, "session memory", "system", None),
        (10, "deep", "assistant", "deep"),
        (10, "message 0 (user)", "user", None),
        (10, "hint", "user", "hint"),
        (10, "directive dp (depth)", "system", None),
        (10, "message 1 (assistant)", "assistant", None),
        (10, "ale", "system", "ale"),
        (10, "message 2 (user)", "user", None),
        (11, "directive au (auto)", "system", None),
        (11, "directive odd (sideways)", "system", None),
        (11, "pending context 0", "system", None),
        (11, "pending context 1", "user", None),
        (12, "dynamic format", "system", None),
        (13, "cot", "user", "cot"),
        (13, "style", "system", "style"),
        (13, "directive b (bottom)", "system", None),
    ]
    assert result.blocks[0].tokens == 4  # "Fiction mode." = 13 bytes
    assert result.tokens == sum(-(-len(m.content.encode()) // 4) for m in result.messages)


def test_to_dict_has_the_cli_shape() -> None:
    world = load_world(GOLDEN)
    data = assemble_prompt(world, HISTORY, golden_state(), persona=KAI).to_dict()
    assert set(data) == {"messages", "breakpoint", "fired", "dropped", "tokens"}
    assert data["messages"][0] == {
        "role": "system",
        "content": "Fiction mode.\n\nYou narrate Luna's story for Kai.\n\nLuna is a bard.",
    }
    assert data["fired"][-1] == {"entry": "cot", "reason": "always (post-history)"}
    assert data["breakpoint"] == 10


def test_above_the_breakpoint_is_byte_identical_from_turn_to_turn() -> None:
    world = load_world(GOLDEN)
    first = assemble_prompt(world, HISTORY[:1], SessionState(turn=1), persona=KAI)
    later_state = golden_state()
    later_state.values = {"health": 3, "location": "cellar"}
    later_state.entry_toggles = {"secret": False}
    later = assemble_prompt(world, [*HISTORY, *HISTORY], later_state, persona=KAI)
    assert first.breakpoint == later.breakpoint == 10
    assert first.messages[:10] == later.messages[:10]
    assert first.messages[10:] != later.messages[10:]


def test_a_conditional_preset_is_sent_only_while_its_conditions_hold() -> None:
    world = load_world(GOLDEN)
    healthy = assemble_prompt(world, HISTORY, {"health": 90}, persona=KAI)
    assert not any("badly hurt" in m.content for m in healthy.messages)
    hurt = assemble_prompt(world, HISTORY, {"health": 10}, persona=KAI)
    index = next(i for i, m in enumerate(hurt.messages) if "badly hurt" in m.content)
    assert index >= hurt.breakpoint


def test_a_rule_toggled_entry_is_placed_below_the_breakpoint_when_on() -> None:
    world = load_world(GOLDEN)
    off = assemble_prompt(world, HISTORY, SessionState(), persona=KAI)
    assert not any("cellar" in m.content for m in off.messages)
    on = assemble_prompt(world, HISTORY, SessionState(entry_toggles={"secret": True}))
    index = next(i for i, m in enumerate(on.messages) if "cellar" in m.content)
    assert index >= on.breakpoint


def test_without_persona_summary_memory_or_variables_those_blocks_are_omitted() -> None:
    world = load_world(
        {"name": "Bare", "entries": [{"id": "a", "section": "system-presets", "content": "A."}]}
    )
    result = assemble_prompt(world, [Message("user", "hi")])
    assert pairs(result) == [
        ("system", "A."),
        ("system", "[Start a new Chat]"),
        ("user", "hi"),
    ]
    assert result.breakpoint == 1


def test_an_empty_history_still_gets_depth_entries_and_the_start_marker() -> None:
    world = load_world(
        {
            "name": "Empty",
            "entries": [
                {
                    "id": "mood",
                    "section": "chat-history",
                    "depth": 2,
                    "conditions": [{"variableId": "hp", "operator": "gt", "value": 0}],
                    "content": "Mood.",
                }
            ],
            "variables": [{"id": "hp", "type": "number", "defaultValue": 5}],
        }
    )
    messages = pairs(assemble_prompt(world, []))
    assert messages[-3:] == [
        ("system", "[Start a new Chat]"),
        ("system", "Mood."),
        ("system", "<current-state>\nhp: 5\n</current-state>"),
    ]


def test_depth_counts_messages_from_the_end() -> None:
    entries = [
        {
            "id": f"d{d}",
            "section": "chat-history",
            "keywords": ["go"],
            "depth": d,
            "content": f"D{d}",
        }
        for d in (0, 1, 2)
    ]
    world = load_world({"name": "Depth", "entries": entries, "settings": {"lorebookScanDepth": 9}})
    history = [Message("user", "go 1"), Message("assistant", "a 2"), Message("user", "go 3")]
    assert [m.content for m in assemble_prompt(world, history).messages][1:] == [
        "D2",
        "go 1",
        "D1",
        "a 2",
        "D0",
        "go 3",
    ]


def test_entries_at_the_same_depth_keep_position_order() -> None:
    entries = [
        {"id": "late", "section": "chat-history", "keywords": ["go"], "depth": 0, "position": 5},
        {"id": "early", "section": "chat-history", "keywords": ["go"], "depth": 0, "position": 1},
    ]
    for entry in entries:
        entry["content"] = entry["id"]
    world = load_world({"name": "Same", "entries": entries})
    contents = [m.content for m in assemble_prompt(world, [Message("user", "go")]).messages]
    assert contents[-3:] == ["early", "late", "go"]


def test_oldest_history_is_dropped_first_when_over_max_context() -> None:
    world = load_world(
        {
            "name": "Tight",
            "entries": [{"id": "a", "section": "system-presets", "content": "x" * 40}],
            "settings": {"maxContext": 40},
        }
    )
    history = [Message("user" if i % 2 == 0 else "assistant", "y" * 20) for i in range(6)]
    result = assemble_prompt(world, history)
    # fixed: 10 (preset) + 5 ("[Start a new Chat]") = 15; 25 left = 5 messages of 5 tokens
    assert result.dropped == [0]
    assert [m.content for m in result.messages][:2] == ["x" * 40, "[Start a new Chat]"]
    assert len(result.messages) == 2 + 5


def test_the_latest_message_is_never_dropped() -> None:
    world = load_world({"name": "Tiny", "settings": {"maxContext": 1}})
    history = [Message("user", "old " * 50), Message("user", "new " * 50)]
    result = assemble_prompt(world, history)
    assert result.dropped == [0]
    assert result.messages[-1].content == "new " * 50


def test_depth_entries_count_from_the_end_of_the_kept_history() -> None:
    world = load_world(
        {
            "name": "Kept",
            "entries": [
                {
                    "id": "far",
                    "section": "chat-history",
                    "keywords": ["m"],
                    "depth": 50,
                    "content": "FAR",
                }
            ],
            "settings": {"maxContext": 30, "lorebookScanDepth": 10},
        }
    )
    history = [Message("user", f"m{i} " + "z" * 16) for i in range(10)]
    result = assemble_prompt(world, history)
    assert result.dropped
    first_history = 1  # after "[Start a new Chat]"
    assert result.messages[first_history].content == "FAR"


def test_state_may_be_a_plain_values_dict_or_session_json() -> None:
    world = load_world(GOLDEN)
    as_values = assemble_prompt(world, HISTORY, {"health": 20, "location": "tavern"})
    as_json = assemble_prompt(
        world, HISTORY, {"values": {"health": 20, "location": "tavern"}, "turn": 3}
    )
    as_model = assemble_prompt(
        world, HISTORY, SessionState(values={"health": 20, "location": "tavern"})
    )
    assert as_values.messages == as_json.messages == as_model.messages


def test_macros_in_entries_see_the_turn_and_the_context() -> None:
    world = load_world(
        {
            "name": "Macro",
            "entries": [
                {
                    "id": "a",
                    "section": "post-history",
                    "content": "Turn {{turnCount}}: {{lastUserMessage}}",
                }
            ],
        }
    )
    result = assemble_prompt(world, [Message("user", "hello")], SessionState(turn=4))
    assert result.messages[-1].content == "Turn 4: hello"
    context = MacroContext(turn=9, char="Aria")
    result = assemble_prompt(world, [Message("user", "hi")], SessionState(turn=4), context=context)
    assert result.messages[-1].content == "Turn 9: hi"


def test_chat_history_messages_are_not_macro_expanded() -> None:
    world = load_world({"name": "Raw"})
    result = assemble_prompt(world, [Message("user", "{{char}} {{roll::1d6}}")])
    assert result.messages[-1].content == "{{char}} {{roll::1d6}}"


def test_parse_examples_reads_macro_and_name_prefixes() -> None:
    text = (
        "Luna is shy.\n"
        "<START>\n"
        "{{user}}: Hello there.\n"
        "{{char}}: *blushes*\n"
        "Hi.\n"
        "<start>\n"
        "Kai: One?\n"
        "Kai: Two?\n"
        "Luna: Three."
    )
    assert parse_examples(text, "Kai", "Luna") == [
        [("system", "Luna is shy.")],
        [("user", "Hello there."), ("assistant", "*blushes*\nHi.")],
        [("user", "One?\nTwo?"), ("assistant", "Three.")],
    ]


# --- properties ---------------------------------------------------------------------------

WORDS = ["tavern", "night", "ale", "dragon", "door", "gold", "酒馆", "rain"]
SECTIONS = ["system-presets", "examples", "chat-history", "post-history"]

words = st.sampled_from(WORDS)
text = st.lists(words, min_size=1, max_size=6).map(" ".join)
entry = st.fixed_dictionaries(
    {
        "section": st.sampled_from(SECTIONS),
        "apiRole": st.sampled_from(["system", "user", "assistant"]),
        "position": st.integers(0, 3),
        "keywords": st.lists(words, max_size=2),
        "depth": st.none() | st.integers(0, 4),
        "enabled": st.booleans(),
        "content": st.one_of(
            text,
            text.map(lambda t: "{{char}} and {{user}}: " + t),
            st.just("<START>\n{{user}}: hi\n{{char}}: hello"),
        ),
        "conditions": st.lists(
            st.fixed_dictionaries(
                {
                    "variableId": st.just("hp"),
                    "operator": st.sampled_from(["lt", "gt", "eq"]),
                    "value": st.integers(0, 10),
                }
            ),
            max_size=1,
        ),
    }
)
worlds = st.lists(entry, max_size=8).map(
    lambda entries: {
        "name": "Prop",
        "entries": [{"id": f"e{i}", **e} for i, e in enumerate(entries)],
        "variables": [{"id": "hp", "type": "number", "defaultValue": 5}],
        "rules": [
            {
                "id": "flip",
                "trigger": {"type": "manual"},
                "actions": [{"type": "toggle-entry", "entryId": "e0", "enabled": True}],
            }
        ],
        "settings": {"lorebookScanDepth": 3, "lorebookRecursionDepth": 1},
    }
)
chats = st.lists(
    st.tuples(st.sampled_from(["user", "assistant"]), text).map(lambda p: Message(*p)),
    max_size=6,
)
states = st.builds(
    lambda hp, turn, toggle, directives, pending, summary: SessionState(
        values={"hp": hp},
        turn=turn,
        entry_toggles={"e0": toggle} if toggle is not None else {},
        directives={
            f"d{i}": InjectedDirective(id=f"d{i}", content=f"Do {i}.", position=p, depth=d)
            for i, (p, d) in enumerate(directives)
        },
        pending_context=[ContextMessage(content=p) for p in pending],
        compaction_summary=summary,
    ),
    st.integers(0, 10),
    st.integers(0, 50),
    st.none() | st.booleans(),
    st.lists(
        st.tuples(
            st.sampled_from(["top", "before_char", "after_char", "auto", "depth", "bottom"]),
            st.none() | st.integers(0, 3),
        ),
        max_size=3,
    ),
    st.lists(text, max_size=2),
    st.sampled_from(["", "Earlier things happened."]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world_data=worlds, chat=chats, state=states, other_chat=chats, other_state=states)
def test_assembly_is_deterministic_and_the_prefix_depends_only_on_world_and_persona(
    world_data: dict[str, Any],
    chat: list[Message],
    state: SessionState,
    other_chat: list[Message],
    other_state: SessionState,
) -> None:
    world: WorldDefinition = load_world(world_data)
    one = assemble_prompt(world, chat, state, persona=KAI)
    again = assemble_prompt(world, chat, state, persona=KAI)
    assert one == again
    other = assemble_prompt(world, other_chat, other_state, persona=KAI)
    assert one.breakpoint == other.breakpoint
    assert one.messages[: one.breakpoint] == other.messages[: other.breakpoint]
    assert [b.step for b in one.blocks] == sorted(b.step for b in one.blocks), (
        "blocks come in step order"
    )


def test_random_macros_above_the_breakpoint_are_the_creators_choice() -> None:
    world = load_world(
        {
            "name": "Rnd",
            "entries": [
                {"id": "a", "section": "system-presets", "content": "{{random::x::y::z::w}}"}
            ],
        }
    )
    contents = {
        assemble_prompt(world, [], context=MacroContext(rng=random.Random(i))).messages[0].content
        for i in range(20)
    }
    assert len(contents) > 1
