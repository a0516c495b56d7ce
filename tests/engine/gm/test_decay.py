"""Forgotten NPC memories pruned from the stored state (engine.gm.decay; seed 001's table)."""

from __future__ import annotations

from engine.gm.decay import prune_forgotten
from engine.gm.state import initial_gm_state
from engine.gm.world import Memory
from tests.engine.gm.worlds import demo_world


def memory(importance: int, day: int, text: str = "He asked about the cellar.") -> Memory:
    return Memory(about="ren", text=text, importance=importance, day=day)


def test_each_importance_is_forgotten_after_its_game_days():
    gm = demo_world().game_master
    state = initial_gm_state(gm)
    state.clock.day = 34
    state.memories["hilda"] = [
        memory(1, 31),
        memory(1, 30),
        memory(2, 4),
        memory(2, 3),
        memory(3, 1),
    ]

    dropped = prune_forgotten(gm, state)

    assert dropped == 2
    assert [(m.importance, m.day) for m in state.memories["hilda"]] == [(1, 31), (2, 4), (3, 1)]


def test_authored_memories_are_copied_into_the_state_only_when_one_is_forgotten():
    world = demo_world()
    gm = world.game_master.model_copy(
        update={
            "npcs": [
                n.model_copy(update={"memories": [memory(1, 1), memory(3, 1)]})
                if n.id == "greta"
                else n
                for n in world.game_master.npcs
            ]
        }
    )
    state = initial_gm_state(gm)

    assert prune_forgotten(gm, state) == 0 and "greta" not in state.memories
    state.clock.day = 5
    assert prune_forgotten(gm, state) == 1
    assert [m.importance for m in state.memories["greta"]] == [3]


def test_memories_of_an_npc_no_longer_in_the_world_are_pruned_too():
    gm = demo_world().game_master
    state = initial_gm_state(gm)
    state.clock.day = 40
    state.memories["gone"] = [memory(1, 1), memory(3, 1)]

    assert prune_forgotten(gm, state) == 1
    assert len(state.memories["gone"]) == 1
