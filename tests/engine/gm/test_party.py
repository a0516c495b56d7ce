"""An NPC talks with one player character at a time; the others wait their turn or join (seed
001 "Un NPC habla con uno cada vez; los demás esperan turno o se unen a la conversación";
GM-P-2; engine.gm.party)."""

from __future__ import annotations

import copy

import pytest

from engine.gm.party import whisper_to
from tests.engine.gm.party_worlds import Table, inn_world, party_world
from tests.engine.gm.worlds import new_state, scene_for

# language: (Ren opens the talk, Ada speaks to Hilda, Ada joins, what the refusal says)
CASES = {
    "en": (
        "Hello Hilda, how are you?",
        "Hilda, any news?",
        "I join the conversation",
        "is talking with Ren Ashby. Wait your turn, or join the conversation.",
    ),
    "es": (
        "Hola Hilda, ¿qué tal?",
        "Hilda, ¿alguna noticia?",
        "me uno a la conversación",
        "está hablando con Ren Ashby. Espera tu turno o únete a la conversación.",
    ),
    "zh": (
        "Hilda，你好吗？",
        "Hilda，有什么消息？",
        "加入他们的谈话",
        "正在和Ren Ashby说话。等一等，或者加入他们的谈话。",
    ),
}


def busy_table(language: str) -> Table:
    table = Table(party_world(language))
    opened = table.act("ren", CASES[language][0])
    assert opened.kind == "master" and any(e.kind == "talk" for e in opened.events)
    return table


@pytest.mark.parametrize("language", sorted(CASES))
def test_an_npc_talking_with_another_character_asks_him_to_wait_for_free(language):
    table = busy_table(language)
    result = table.act("ada", CASES[language][1])
    assert result.kind == "refused" and result.model_calls == 0
    assert not result.counts_toward_quota
    assert CASES[language][3] in result.narration
    assert result.delivered_to == {"ada": result.narration}
    assert not result.events


@pytest.mark.parametrize("language", sorted(CASES))
def test_after_joining_he_may_talk_with_the_npc(language):
    table = busy_table(language)
    joined = table.act("ada", CASES[language][2])
    assert joined.kind == "engine" and joined.model_calls == 0
    assert "Ren Ashby" in joined.narration
    assert "ren" in joined.delivered_to  # Ren sees Ada join
    result = table.act("ada", CASES[language][1])
    assert result.kind == "master" and any(e.kind == "talk" for e in result.events)


def test_the_first_speaker_goes_on_talking_while_the_other_waits():
    table = busy_table("en")
    assert table.act("ada", "Hilda, any news?").kind == "refused"
    again = table.act("ren", "What news, Hilda?")
    assert again.kind == "master" and any(e.kind == "talk" for e in again.events)


def test_once_the_talk_ends_with_a_farewell_the_npc_is_free():
    table = busy_table("en")
    assert table.act("ada", "Hilda, any news?").kind == "refused"
    table.act("ren", "Goodbye, Hilda.")
    result = table.act("ada", "Hilda, any news?")
    assert result.kind == "master"


def test_once_the_other_leaves_the_npc_is_free():
    table = busy_table("en")
    assert table.act("ada", "Hilda, any news?").kind == "refused"
    table.act("ren", "go south")
    assert table.act("ada", "Hilda, any news?").kind == "master"


def test_joining_when_nobody_is_talking_is_refused():
    table = Table(party_world())
    result = table.act("ada", "I join the conversation")
    assert result.kind == "refused" and result.model_calls == 0
    assert result.narration == "Nobody here is in a conversation you could join."


def test_the_refusal_names_the_npc_as_the_waiting_character_knows_it():
    table = Table(party_world())
    table.act("ren", "Hello innkeeper, how are you?")  # her name is not said where Ada hears
    result = table.act("ada", "Innkeeper, any news?")
    assert result.narration.startswith("The innkeeper is talking with Ren Ashby.")
    assert result.suggestions == ["Join the conversation"]


def test_other_acts_are_not_held():
    table = busy_table("en")
    left = table.act("ada", "go south")
    assert left.kind == "engine" and left.delivered_to["ren"].startswith("Ada Thorne goes south")


# --- names he never learnt (issue 32, finding 7) ------------------------------------------------


def test_a_whisper_to_a_name_he_never_learnt_is_answered_as_a_made_up_name():
    """Ada never learnt the shopkeeper's name: "Osric" must not find him (nor tell her who
    he is), exactly as "Zed" finds nobody; the trade still does."""
    guessed = Table(inn_world()).act("ada", "I whisper to Osric: the ring is fake")
    made_up = Table(inn_world()).act("ada", "I whisper to Zed: the ring is fake")
    assert guessed.narration == made_up.narration.replace("Zed", "Osric")
    assert guessed.delivered_to.keys() == made_up.delivered_to.keys() == {"ada"}
    assert not [e for e in guessed.events if e.kind == "talk"]
    by_trade = Table(inn_world()).act("ada", "I whisper to the shopkeeper: the ring is fake")
    assert [e.actor for e in by_trade.events if e.kind == "talk"] == ["osric"]


def test_whisper_to_matches_an_npc_by_his_name_only_once_he_knows_it():
    world = inn_world()
    scene = scene_for(world, new_state(world), "ada")
    assert whisper_to(scene, "I whisper to Osric: hi") is None
    assert whisper_to(scene, "I whisper to the shopkeeper: hi") == "osric"
    scene.me.known_names.append("osric")
    assert whisper_to(scene, "I whisper to Osric: hi") == "osric"


def test_joining_by_a_name_he_never_learnt_joins_as_a_made_up_name_would():
    """Two conversations at the inn: Ren with Hilda, Cai with the shopkeeper. Ada, who never
    learnt Osric's name, cannot pick his by it: she gets the first, as with a made-up name."""
    table = Table(inn_world(cai="the-wayfarer"))
    assert table.act("ren", "Hello Hilda, how are you?").kind == "master"
    assert table.act("cai", "Hello shopkeeper, how are you?").kind == "master"
    assert table.state.gm is not None
    assert "osric" not in table.state.gm.characters["ada"].known_names

    def join(typed: str) -> str:
        return copy.deepcopy(table).act("ada", typed).narration

    first = "You join the conversation with Hilda Brant and Ren Ashby."
    assert join("I join the conversation with Osric") == first
    assert join("I join the conversation with Zed") == first
    other = "You join the conversation with the shopkeeper and Cai Morrow."
    assert join("I join the conversation with the shopkeeper") == other
    assert join("I join the conversation with Cai") == other
