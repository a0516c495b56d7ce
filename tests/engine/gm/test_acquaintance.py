"""Player characters are named to each other only once met or introduced (issue 33 §5;
engine.gm.acquaintance): until then the scene, the delivered lines and the master's context
describe a stranger by how he looks, or as "another traveller"."""

from __future__ import annotations

import pytest

from engine.gm.acquaintance import stranger, stranger_names, unnamed
from engine.gm.arrival import opening_scene
from engine.gm.perception import perceive, scene_context
from tests.engine.gm.party_worlds import Table, party_world

REN_LOOKS = "a lean young man in a patched green coat"
ADA_LOOKS = "a tall woman in a grey travelling cloak with a lantern sigil"


def strangers(language: str = "en", **where: str) -> Table:
    """Ren and Ada at the inn (Cai at the mill, unless told), none of them met yet."""
    return Table(party_world(language, acquainted=False, **where))


def met(table: Table, who: str) -> list[str]:
    assert table.state.gm is not None
    return table.state.gm.characters[who].met


# --- described, not named ----------------------------------------------------------------------


def test_the_scene_describes_a_character_he_has_not_met():
    result = strangers().act("ren", "look")
    assert f"Here: Hilda Brant, {ADA_LOOKS}." in result.narration
    assert "Ada" not in result.narration


def test_an_arrival_is_seen_as_a_stranger_arriving():
    result = strangers(ada="square").act("ada", "go north")
    assert result.delivered_to["ren"] == f"{ADA_LOOKS.capitalize()} arrives from Market Square."


def test_a_character_without_an_appearance_is_another_traveller_in_each_language():
    assert (
        "Here: Hilda Brant, another traveller."
        in strangers(cai="the-wayfarer", ada="square").act("ren", "look").narration
    )
    table = strangers("es", ada="square", cai="square")
    assert table.act("cai", "go north").delivered_to["ren"].startswith("Otro viajero llega")
    table = strangers("zh", ada="square", cai="square")
    assert table.act("cai", "go north").delivered_to["ren"].startswith("另一位旅人")


def test_a_deed_and_words_to_an_npc_show_the_actor_as_a_stranger():
    table = strangers()
    took = table.act("ren", "take the coil of rope")
    assert took.delivered_to["ada"].startswith(f"{REN_LOOKS.capitalize()} takes")
    whispered = table.act("ren", "I whisper to Hilda: the ring is fake")
    assert whispered.delivered_to["ada"] == (
        f"{REN_LOOKS.capitalize()} whispers something to the innkeeper."
    )
    assert met(table, "ada") == [] and met(table, "ren") == []


def test_the_masters_context_says_the_name_is_not_known_yet():
    world = party_world(acquainted=False)
    table = Table(world)
    table.act("ren", "look")
    assert table.state.gm is not None and world.game_master is not None
    context = scene_context(perceive(world.game_master, table.state.gm, "ada"))
    assert "- player character Ren Ashby: A lean young man" in context
    assert "Ada Thorne does not know this name yet" in context


def test_a_world_may_say_they_know_each_other_already():
    result = Table(party_world()).act("ren", "look")
    assert "Here: Hilda Brant, Ada Thorne." in result.narration


# --- meeting -----------------------------------------------------------------------------------


def test_an_introduction_teaches_the_name_to_everyone_who_hears_it():
    table = strangers(cai="the-wayfarer")
    said = table.act("ren", "Hello everyone, I'm Ren")
    assert said.delivered_to["ada"].startswith("Ren Ashby: “Hello everyone, I'm Ren”")
    assert met(table, "ada") == ["ren"] and met(table, "cai") == ["ren"]
    assert met(table, "ren") == []  # he told his name; he learnt none
    look = table.act("ada", "look").narration
    assert "Ren Ashby" in look and "another traveller" in look  # Cai has not spoken


def test_speaking_to_a_stranger_by_how_he_looks_is_meeting_him():
    table = strangers()
    table.act("ada", "Lean young man, well met!")
    assert met(table, "ada") == ["ren"] and met(table, "ren") == ["ada"]
    assert "Here: Hilda Brant, Ada Thorne." in table.act("ren", "look").narration


def test_a_whisper_to_a_stranger_is_meeting_him_and_the_others_see_a_stranger():
    table = strangers(cai="the-wayfarer")
    result = table.act("ren", "I whisper to the tall woman: the ring is fake")
    assert met(table, "ren") == ["ada"] and met(table, "ada") == ["ren"]
    assert result.delivered_to["cai"] == (
        f"{REN_LOOKS.capitalize()} whispers something to {ADA_LOOKS}."
    )


def test_joining_his_conversation_is_meeting_him():
    table = strangers()
    table.act("ren", "Hello Hilda, how are you?")
    joined = table.act("ada", "I join the conversation")
    # his words named Hilda; joining them is meeting him
    assert joined.narration == "You join the conversation with Hilda Brant and Ren Ashby."
    assert met(table, "ren") == ["ada"]


def test_a_name_he_never_learnt_teaches_nobody():
    """Ren's player read "Ada Thorne" on the page; Ren never heard it: saying it aloud is a
    guess, and Cai, who hears it, learns nothing of her."""
    table = strangers(cai="the-wayfarer")
    table.act("ren", "Hello, Ada Thorne!")
    assert "ada" not in met(table, "cai")


# --- the words ---------------------------------------------------------------------------------


def test_a_stranger_goes_by_the_first_clause_of_his_appearance_and_its_head():
    world = party_world()
    assert world.game_master is not None
    assert stranger(world.game_master, "ren", "en") == REN_LOOKS
    assert stranger_names(world.game_master, "ada", "en") == [ADA_LOOKS, "tall woman"]
    assert stranger(world.game_master, "cai", "es") == "otro viajero"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ren Ashby arrives.", f"{REN_LOOKS.capitalize()} arrives."),
        ("Hilda talks with Ren Ashby. Ren Ashby nods.", None),
        ("Ada Thorne: “hi”", "Ada Thorne: “hi”"),
    ],
)
def test_unnamed_replaces_only_the_names_he_does_not_know(text, expected):
    world = party_world()
    assert world.game_master is not None
    out = unnamed(world.game_master, text, "ada", [], "en")
    if expected is None:
        expected = f"Hilda talks with {REN_LOOKS}. {REN_LOOKS.capitalize()} nods."
    assert out == expected


# --- the scene a joiner finds ------------------------------------------------------------------


def test_the_opening_scene_is_the_look_of_his_place_and_changes_nothing():
    world = party_world("es", acquainted=False)
    table = Table(world)
    table.act("ren", "look")
    before = table.state.model_dump()
    scene = opening_scene(world, table.state, "ada")
    assert scene.startswith("The Wayfarer's Rest.")
    assert "Aquí: posadera" in scene or "Aquí:" in scene
    assert REN_LOOKS in scene and "Ren" not in scene
    assert table.state.model_dump() == before
