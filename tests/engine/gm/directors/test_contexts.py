"""What each director is given (seed 003: the Story Director sees everything, the Scene
Director a deliberately reduced view; the Game Director the rules and the perceived scene)."""

from __future__ import annotations

import json

from engine.gm.directors.game import game_brief
from engine.gm.directors.knowledge import secret_inventory
from engine.gm.directors.prompts import words
from engine.gm.world import Memory
from tests.engine.gm.directors.support import (
    Directors,
    close,
    new_session,
    play,
    say,
    story,
    world,
)

BAKERY = story("Greta serves bread.", "greta", "bakery")


def first_turn(action: str = "Good morning, Greta.") -> tuple[Directors, list[str]]:
    vampire = world("vampire")
    state = new_session(vampire)
    state.session_memory = "RECAP: the fever week."
    provider = Directors(
        game=[close("Mira greets Greta.")], story=[BAKERY], scene=[say("greta", "Morning!")]
    )
    play(vampire, state, "mira", action, provider)
    told = {"disclosure:greta:stranger"}  # what Greta tells anyone she trusts this much
    secrets = [r.text for r in secret_inventory(vampire.game_master) if r.ref not in told]
    return provider, secrets


def test_the_game_director_gets_the_masters_brief_its_addendum_the_tools_and_the_scene():
    provider, secrets = first_turn()
    request = provider.requests[0]
    assert provider.labels == ["game", "story", "scene"]
    assert request.messages[0].content == game_brief("en", 8)
    assert "log_event" in [t["name"] for t in request.tools or []]
    assert "Scene (what Mira Voss perceives)" in request.messages[1].content
    text = provider.texts("game")[0]
    assert [s for s in secrets if s in text] == []


def test_the_story_director_sees_everything():
    provider, _ = first_turn()
    request, text = provider.requests[1], provider.texts("story")[0]
    assert request.tools is None and request.messages[0].content == words("en").brief("story")
    everything = [r.text for r in secret_inventory(world("vampire").game_master)]
    assert [s for s in everything if s not in text] == []
    for expected in ("RECAP: the fever week.", "apothecary's satchel", "class apothecary"):
        assert expected in text
    assert "character:mira:1" in text and "Mira Voss (mira): Good morning, Greta." in text


def test_the_scene_director_gets_the_public_view_the_synopsis_and_the_action():
    provider, secrets = first_turn()
    request, text = provider.requests[2], provider.texts("scene")[0]
    assert request.tools is None and request.messages[0].content == words("en").brief("scene")
    assert [s for s in secrets if s in text] == []
    context = request.messages[1].content
    assert "A pale young woman in a grey wool coat, always gloved" in context
    assert "careful" not in context and "proud" not in context  # traits
    assert "Greta Holm [greta]" in context and "would tell Mira Voss: Bread is dearer" in context
    assert "Synopsis from the Story Director: Greta serves bread." in context
    assert "Hale" not in context and "Anselm" not in context  # not in the scene
    assert request.messages[-1].content.endswith(
        "The action of Mira Voss: Good morning, Greta.\n\nPlay the scene now."
    )


def test_latest_memories_are_listed_and_older_ones_found_by_the_search():
    vampire = world("vampire")
    state = new_session(vampire)
    older = [Memory(about="mira", text="Mira asked about the river pens.", importance=3)]
    older.append(Memory(about="mira", text="Mira paid in copper.", importance=3))
    latest = [Memory(about="mira", text=f"Chat number {n}.", importance=3) for n in range(6)]
    state.gm.memories["greta"] = [*older, *latest]
    provider = Directors(game=[close("Mira asks.")], story=[BAKERY], scene=[say("greta", "Hm.")])
    play(vampire, state, "mira", "Greta, what of the river pens?", provider)
    context = provider.requests[2].messages[1].content
    remembers, older_part = context.split("  remembers:")[1].split("  older memories:")
    assert all(f"Chat number {n}." in remembers for n in range(6))
    assert "Mira asked about the river pens." in older_part
    assert "copper" not in context


def test_an_npc_is_told_only_the_scenes_it_was_in():
    vampire = world("vampire")
    state = new_session(vampire)
    provider = Directors(
        game=[close("Mira talks."), close("Mira greets the constable.")],
        story=[BAKERY, story("Hale is bored.", "hale", "square")],
        scene=[say("greta", "A chaotic desk!"), say("hale", "Morning.")],
    )
    result = play(vampire, state, "mira", "My desk is a chaotic mess, Greta.", provider)
    result = play(vampire, result.state, "mira", "go to the square", provider)
    play(vampire, result.state, "mira", "Good day, constable.", provider)
    hale = provider.texts("scene")[1]
    assert "chaotic" not in hale.lower()
    assert "chaotic" in provider.texts("story")[1].lower()  # the Story Director saw it


def test_the_scene_director_keeps_the_scene_it_played():
    vampire = world("vampire")
    state = new_session(vampire)
    provider = Directors(
        game=[close("Mira greets Greta."), close("Mira chats.")],
        story=[BAKERY],
        scene=[say("greta", "Morning!"), say("greta", "Still here?")],
    )
    result = play(vampire, state, "mira", "Good morning, Greta.", provider)
    play(vampire, result.state, "mira", "Lovely weather.", provider)
    second = provider.requests[-1]
    roles = [m.role for m in second.messages]
    assert roles == ["system", "user", "user", "assistant", "user"]
    assert second.messages[2].content == "The action of Mira Voss: Good morning, Greta."
    assert second.messages[3].content == '<say npc="greta">Morning!</say>'
    assert json.dumps(second.messages[1].to_dict()) == json.dumps(
        provider.requests[2].messages[1].to_dict()
    )  # the context stays byte for byte: the prefix is read from cache
