"""What the others present perceive of a player's typed action (issue 32 §10; engine.gm.aloud
and engine.gm.seen): his words only when he says them aloud, never what he typed; the same in
the other seat's delivery, its session memory and the NPCs' memories of the scene."""

from __future__ import annotations

import asyncio

import pytest

from engine.gm.aloud import words_aloud
from engine.gm.memory import memories
from engine.memory import apply_work, due_work, write_work
from tests.engine.gm.party_worlds import Table, inn_world, party_world

PEOPLE = [("hilda", ["Hilda Brant", "Hilda", "innkeeper"]), ("ada", ["Ada Thorne", "Ada"])]


@pytest.mark.parametrize(
    ("language", "typed", "words"),
    [
        ("en", "Hello Hilda, how are you?", "Hello Hilda, how are you?"),
        ("en", "Hilda, the ring is fake!", "Hilda, the ring is fake!"),
        ("en", 'I tell Ada: "meet me at the mill"', "meet me at the mill"),
        ("en", "I tell Hilda: the ring is fake", "the ring is fake"),
        ("en", "I whisper to myself: the chalice is in my coat", ""),
        ("en", "I think to myself: Greta suspects nothing", ""),
        ("en", "say hello to everyone", ""),
        ("en", "steal from Greta", ""),
        ("en", "search my coat", ""),
        ("en", "Note: I hide the ring", ""),
        ("en", "is the door locked?", ""),
        ("es", "le digo a Ada: «nos vemos en el molino»", "nos vemos en el molino"),
        ("es", "Hola Hilda, ¿qué tal?", "Hola Hilda, ¿qué tal?"),
        ("es", "pienso para mí: el cáliz está en mi abrigo", ""),
        ("zh", "我对Ada说：“磨坊见”", "磨坊见"),
        ("zh", "你好，Hilda", "你好，Hilda"),
        ("zh", "我心想：圣杯在我的外套里", ""),
    ],
)
def test_only_words_said_aloud_are_heard(language, typed, words):
    assert words_aloud(typed, language, PEOPLE) == words


def test_a_whisper_is_heard_by_its_addressee_alone():
    typed = "I whisper to Ada: meet me at the mill"
    assert words_aloud(typed, "en", PEOPLE) == ""
    assert words_aloud(typed, "en", PEOPLE, whispered=True) == "meet me at the mill"


@pytest.mark.parametrize(
    ("language", "typed", "line"),
    [
        ("en", "I ask Hilda about the ring", "Ren Ashby talks with the innkeeper."),
        ("es", "le pregunto a Hilda por el anillo", "Ren Ashby habla con el innkeeper."),
        ("zh", "我问Hilda戒指的事", "Ren Ashby在和innkeeper说话。"),
    ],
)
def test_talk_without_words_is_seen_in_the_worlds_language(language, typed, line):
    result = Table(party_world(language)).act("ren", typed)
    told = result.delivered_to["ada"]
    assert told.splitlines()[0] == line
    assert typed not in told and "Hilda" not in told and "ring" not in told.splitlines()[0]
    # the innkeeper's answer is said aloud: Ada hears it, and it may name the ring (issue 33 §3)


@pytest.mark.parametrize(
    ("language", "typed", "line"),
    [
        ("en", "I whisper to Ada that the mill is safe", "Ren Ashby whispers something to you."),
        ("es", "le susurro a Ada que el molino es seguro", "Ren Ashby te susurra algo."),
        ("zh", "我低声对Ada说磨坊很安全", "Ren Ashby对你低声说了些什么。"),
    ],
)
def test_a_whisper_without_words_tells_its_addressee_only_that_it_happened(language, typed, line):
    result = Table(party_world(language)).act("ren", typed)
    assert result.delivered_to["ada"] == line


def test_a_thought_reaches_nobody_and_starts_no_talk():
    result = Table(party_world()).act("ren", "I whisper to myself: the chalice is in my coat")
    assert set(result.delivered_to) == {"ren"}
    assert not [e for e in result.events if e.kind == "talk"]


def test_a_name_said_aloud_becomes_known_to_those_who_hear_it():
    table = Table(party_world())
    table.act("ren", "Hello Hilda, how are you?")
    assert table.state.gm is not None
    assert "hilda" in table.state.gm.characters["ada"].known_names
    quiet = Table(party_world())
    quiet.act("ren", "I ask Hilda about the ring")
    assert quiet.state.gm is not None
    assert "hilda" not in quiet.state.gm.characters["ada"].known_names


def test_the_other_seats_memory_and_the_npcs_hold_none_of_what_he_typed():
    table = Table(party_world())
    typed = ["I whisper to myself: the chalice is in my coat", "I ask Hilda about the ring"]
    for text in typed:
        table.act("ren", text)
    table.act("ada", "go south")  # her scene at the inn ends: its recap is written
    state, world = table.state, table.world
    work = due_work(world, state, [], character_id="ada")
    assert work is not None
    assert apply_work(world, state, work, asyncio.run(write_work(world, work, None)))
    assert "Ren Ashby talks with the innkeeper." in state.session_memory
    assert state.gm is not None and world.game_master is not None
    remembered = " ".join(m.text for m in memories(world.game_master, state.gm, "hilda"))
    assert "Hilda" not in state.session_memory  # Ada never heard her name
    for text in [state.session_memory, remembered]:
        assert all(t not in text for t in typed)
        assert "chalice" not in text and "the ring" not in text


def test_a_name_she_never_learnt_calls_nobody_and_teaches_nobody():
    """Issue 32 (finding 7): Ada never learnt the shopkeeper's name. "Osric, …" calls nobody
    (as "Zed, …" would), and her guess said aloud does not teach Ren who Osric is."""
    guessed = Table(inn_world()).act("ada", "Osric, the ring is fake")
    made_up = Table(inn_world()).act("ada", "Zed, the ring is fake")
    assert guessed.delivered_to == {"ada": made_up.delivered_to["ada"].replace("Zed", "Osric")}
    quoted = Table(inn_world()).act("ada", 'I say "Osric, the ring is fake"')
    assert quoted.delivered_to["ren"] == "Ada Thorne: “Osric, the ring is fake”"  # words heard
    assert quoted.state.gm is not None
    assert "osric" not in quoted.state.gm.characters["ren"].known_names
