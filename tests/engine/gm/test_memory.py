"""engine.gm.memory: NPC memories with importance 1–3, forgotten by game day (1 after day + 3,
2 after + 30, 3 never), capped at 8 per (NPC, character) and 40 per NPC, lowest importance then
oldest first (seed 001 "NPC con memoria"; decision 18)."""

from __future__ import annotations

import pytest

from engine.gm.memory import NPC_CAP, PAIR_CAP, forgotten, memories, remember
from engine.gm.world import GameClock, Memory
from tests.engine.gm.toolkit import demo_scene, world_with
from tests.engine.gm.worlds import demo_data, new_state, scene_for


def setup():
    scene = demo_scene()
    return scene.gm, scene.state


def on_day(state, day: int) -> None:
    state.clock = GameClock(day=day, time_of_day="morning")


@pytest.mark.parametrize(
    ("importance", "written", "today", "gone"),
    [
        (1, 1, 4, False),  # day + 3: still there
        (1, 1, 5, True),  # past day + 3
        (2, 1, 31, False),
        (2, 1, 32, True),
        (3, 1, 100_000, False),
    ],
)
def test_forgetting_by_game_day(importance, written, today, gone):
    memory = Memory(about="ren", text="x", importance=importance, day=written)
    assert forgotten(memory, today) is gone


def test_a_memory_is_written_on_todays_game_day():
    gm, state = setup()
    on_day(state, 7)
    remember(gm, state, "hilda", "ren", "Ren  asked about the cellar.", 2)
    [memory] = memories(gm, state, "hilda", about="ren")
    assert (memory.text, memory.importance, memory.day) == ("Ren asked about the cellar.", 2, 7)


def test_forgotten_memories_are_not_recalled_and_dropped_at_the_next_write():
    gm, state = setup()
    remember(gm, state, "hilda", "ren", "small talk", 1)
    remember(gm, state, "hilda", "ren", "paid a debt", 2)
    on_day(state, 5)
    assert [m.text for m in memories(gm, state, "hilda")] == ["paid a debt"]
    lost = remember(gm, state, "hilda", "ren", "came back", 1)
    assert [m.text for m in lost] == ["small talk"]
    assert [m.text for m in state.memories["hilda"]] == ["paid a debt", "came back"]


def test_at_most_eight_about_one_character_the_lowest_importance_going_first():
    gm, state = setup()
    for n in range(PAIR_CAP):
        remember(gm, state, "hilda", "ren", f"m{n}", 3 if n == 0 else 2)
    lost = remember(gm, state, "hilda", "ren", "new and minor", 1)
    assert [m.text for m in lost] == ["new and minor"]
    lost = remember(gm, state, "hilda", "ren", "new and major", 3)
    assert [m.text for m in lost] == ["m1"]  # the oldest of the lowest importance
    kept = memories(gm, state, "hilda", about="ren")
    assert len(kept) == PAIR_CAP and kept[0].text == "m0" and kept[-1].text == "new and major"


def test_among_equals_the_oldest_day_goes_first():
    gm, state = setup()
    state.memories["hilda"] = [
        Memory(about="ren", text=f"d{day}", importance=2, day=day)
        for day in (5, 3, 4, 6, 7, 8, 9, 10)
    ]
    on_day(state, 10)
    lost = remember(gm, state, "hilda", "ren", "today", 2)
    assert [m.text for m in lost] == ["d3"]


def test_at_most_forty_per_npc_across_characters():
    gm, state = setup()
    others = [f"pc{n}" for n in range(6)]
    for who in others:
        for n in range(7):
            remember(gm, state, "hilda", who, f"{who}-{n}", 2)
    assert len(memories(gm, state, "hilda")) == NPC_CAP
    assert memories(gm, state, "hilda")[0].text == "pc0-2"  # the two oldest went
    remember(gm, state, "hilda", "ren", "a minor thing", 1)
    assert "a minor thing" not in [m.text for m in memories(gm, state, "hilda")]
    remember(gm, state, "hilda", "ren", "an unforgettable thing", 3)
    texts = [m.text for m in memories(gm, state, "hilda")]
    assert len(texts) == NPC_CAP and "an unforgettable thing" in texts and "pc0-2" not in texts


def test_authored_memories_are_the_npcs_until_play_writes_and_follow_the_same_rules():
    data = demo_data()
    npcs = [dict(n) for n in data["gameMaster"]["npcs"]]
    npcs[0]["memories"] = [
        {"about": "ren", "text": "Ren's father cheated at cards here.", "importance": 3, "day": 1},
        {"about": "ren", "text": "Ren spilled ale.", "importance": 1, "day": 1},
    ]
    world = world_with(npcs=npcs)
    scene = scene_for(world, new_state(world), "ren")
    gm, state = scene.gm, scene.state
    assert len(memories(gm, state, "hilda", about="ren")) == 2
    on_day(state, 9)
    assert [m.text for m in memories(gm, state, "hilda")] == ["Ren's father cheated at cards here."]
    remember(gm, state, "hilda", "ren", "Ren came back.", 2)
    assert [m.text for m in state.memories["hilda"]] == [
        "Ren's father cheated at cards here.",
        "Ren came back.",
    ]
    assert len(world.game_master.npcs_by_id["hilda"].memories) == 2  # the world is not changed


def test_authored_memories_past_the_caps_are_read_capped_lowest_importance_first():
    """An author (or a state from elsewhere) may hold more than the caps: it is read as if each
    memory had been written in turn (issue 33 §6)."""
    data = demo_data()
    npcs = [dict(n) for n in data["gameMaster"]["npcs"]]
    about_ren = [
        {"about": "ren", "text": f"ren-{n}", "importance": 1 if n < 3 else 2, "day": 1}
        for n in range(PAIR_CAP + 3)
    ]
    ada = [{"about": "ada", "text": f"ada-{n}", "importance": 2, "day": 1} for n in range(10)]
    npcs[0]["memories"] = about_ren + ada
    world = world_with(npcs=npcs)
    scene = scene_for(world, new_state(world), "ren")
    gm, state = scene.gm, scene.state
    ren = [m.text for m in memories(gm, state, "hilda", about="ren")]
    assert ren == [f"ren-{n}" for n in range(3, PAIR_CAP + 3)]  # the three minor ones went
    assert next(m.text for m in memories(gm, state, "hilda", about="ada")) == "ada-2"


def test_a_state_past_the_npc_cap_is_read_capped():
    gm, state = setup()
    state.memories["hilda"] = [
        Memory(about=f"pc{n % 7}", text=f"m{n}", importance=3 if n % 2 else 2, day=1 + n)
        for n in range(56)
    ]
    held = memories(gm, state, "hilda")
    assert len(held) == NPC_CAP
    assert all(sum(m.about == who for m in held) <= PAIR_CAP for who in {m.about for m in held})
    minor = [m.text for m in held if m.importance == 2]
    assert minor == [f"m{n}" for n in range(32, 56, 2)]  # the 16 oldest minor ones went
