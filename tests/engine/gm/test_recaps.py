"""engine.gm.recaps: scenes end when the character leaves or time moves on; each NPC remembers
only what it perceived of a scene (seed 003); the session memory gets the recap."""

from __future__ import annotations

import asyncio

from engine.gm.memory import memories
from engine.gm.recaps import ended_scenes, npcs_in, recollection, scenes_since
from engine.memory import apply_work, due_work, write_work
from tests.engine.gm.worlds import demo_world, new_state, play


def played(*actions: str):  # type: ignore[no-untyped-def]
    world = demo_world()
    state = new_state(world)
    for action in actions:
        state = play(world, state, action, "ren").state
    assert state.gm is not None and world.game_master is not None
    return world, state


def test_a_scene_goes_on_while_the_character_stays_put() -> None:
    _world, state = played("look around", "look around")

    assert len(scenes_since(state.gm, "ren")) == 1
    assert ended_scenes(state.gm, "ren") == []


def test_leaving_ends_the_scene_and_the_next_one_begins() -> None:
    _world, state = played("look around", "go south", "look around")

    [ended] = ended_scenes(state.gm, "ren")
    assert ended.location == "the-wayfarer"
    assert [s.location for s in scenes_since(state.gm, "ren")] == ["the-wayfarer", "square"]


def test_the_npcs_of_a_scene_are_those_that_perceived_it() -> None:
    world, state = played("look around", "go south")

    [ended] = ended_scenes(state.gm, "ren")

    assert npcs_in(world.game_master, ended) == ["hilda"]  # Jory comes in the evening


def test_an_npc_recollects_only_what_it_perceived() -> None:
    world, state = played("look around", "go south")
    [ended] = ended_scenes(state.gm, "ren")
    hidden = ended.events[0].model_copy(update={"seen_by": ["ren"], "text": "Ren hides a ring."})
    scene = ended.__class__(ended.location, ended.day, ended.time_of_day, (hidden, *ended.events))

    text = recollection(world.game_master, scene, "hilda", "en")

    assert "ring" not in text
    assert text.startswith("The Wayfarer's Rest · morning, day 1: Ren Ashby looks at")


def test_a_scene_end_writes_npc_memories_and_a_headed_recap_once() -> None:
    world, state = played("look around", "go south")
    work = due_work(world, state, [], character_id="ren")
    assert work is not None and work.reason == "scene"
    blocks = asyncio.run(write_work(world, work, None))

    assert apply_work(world, state, work, blocks) is True
    assert apply_work(world, state, work, blocks) is False

    assert state.session_memory.splitlines()[0] == "The Wayfarer's Rest · morning, day 1"
    [memory] = memories(world.game_master, state.gm, "hilda", about="ren")
    assert memory.importance == 1
    assert memories(world.game_master, state.gm, "greta") == []
    assert due_work(world, state, [], character_id="ren") is None


def test_ending_the_session_closes_the_scene_in_progress() -> None:
    world, state = played("look around")

    assert due_work(world, state, [], character_id="ren") is None
    work = due_work(world, state, [], character_id="ren", ending=True)
    assert work is not None and work.reason == "session"
    assert [s.location for s in work.scenes] == ["the-wayfarer"]
