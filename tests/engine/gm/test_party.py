"""An NPC talks with one player character at a time; the others wait their turn or join (seed
001 "Un NPC habla con uno cada vez; los demás esperan turno o se unen a la conversación";
GM-P-2; engine.gm.party)."""

from __future__ import annotations

import pytest

from tests.engine.gm.party_worlds import Table, party_world

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
