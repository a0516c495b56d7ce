"""Every event delivered by perception (seed 001 "Multijugador"; GM-P-1, GM-P-3, decision 5;
engine.gm.delivery and the whisper of engine.gm.party): what each player character receives of
one action in a shared session."""

from __future__ import annotations

from engine.gm.delivery import delivered_to
from engine.session import ToolCall
from tests.engine.gm.party_worlds import Table, party_world
from tests.engine.gm.test_talk_flow import Scripted


def test_the_actor_receives_his_narration():
    table = Table(party_world())
    result = table.act("ren", "Hello Hilda, how are you?")
    assert result.delivered_to["ren"] == result.narration


def test_a_character_in_the_room_receives_the_words_and_the_npcs_bubbles():
    table = Table(party_world())
    result = table.act("ren", "Hello Hilda, how are you?")
    [reply] = [e for e in result.events if e.kind == "talk"]
    words = reply.data["bubbles"][0]["text"]
    ada = result.delivered_to["ada"].splitlines()
    # his words said aloud, and the name they said is one Ada now knows (decision 17)
    assert ada == ["Ren Ashby: “Hello Hilda, how are you?”", f"Hilda Brant: “{words}”"]


def test_each_viewer_reads_the_npc_by_the_name_he_knows():
    table = Table(party_world())
    result = table.act("ada", "Hello, innkeeper.")
    [reply] = [e for e in result.events if e.kind == "talk"]
    words = reply.data["bubbles"][0]["text"]
    assert f"Hilda Brant: “{words}”" in result.delivered_to["ren"]  # Ren knows her name
    assert result.narration.startswith("The innkeeper: “")  # Ada does not


def test_a_character_far_away_receives_nothing():
    table = Table(party_world())
    result = table.act("ren", "Hello Hilda, how are you?")
    assert "cai" not in result.delivered_to


def test_an_engine_move_is_seen_by_those_present():
    table = Table(party_world())
    result = table.act("ren", "go south")
    assert result.delivered_to["ada"] == "Ren Ashby goes south to Market Square."
    assert set(result.delivered_to) == {"ren", "ada"}


def test_a_refusal_or_a_question_reaches_the_actor_alone():
    table = Table(party_world())
    refused = table.act("ren", "take the moon")
    asked = table.act("ren", "take")
    assert (refused.kind, asked.kind) == ("refused", "ask")
    assert refused.delivered_to == {"ren": refused.narration}
    assert asked.delivered_to == {"ren": asked.narration}


def test_nothing_to_roll_reaches_the_actor_alone():
    result = Table(party_world()).act("ren", {"roll": True})
    assert result.kind == "refused" and result.delivered_to == {"ren": result.narration}


# --- a fight next door is heard, not seen (decision 5: sound carried per exit) -----------------


def fight(language: str = "en", **placed: str):
    table = Table(party_world(language, **placed))
    table.act("ren", "go south")
    table.act("ren", "I attack Greta")
    return table.act("ren", {"roll": True})


def test_a_fight_through_a_way_that_carries_sound_is_heard_not_seen():
    result = fight(ada="east-road")
    [attack] = [e for e in result.events if e.kind == "attack"]
    assert "ada" in attack.heard_by and "ada" not in attack.seen_by
    assert result.delivered_to["ada"] == "You hear a fight from Market Square."
    assert attack.text not in result.delivered_to["ada"]


def test_a_place_he_does_not_know_is_not_named():
    result = fight(ada="east-road", cai="east-road")
    assert result.delivered_to["cai"] == "You hear a fight nearby."


def test_a_fight_is_heard_in_the_worlds_language():
    assert fight("es", ada="east-road").delivered_to["ada"] == "Oyes una pelea en Market Square."
    assert fight("zh", ada="east-road").delivered_to["ada"] == "你听到Market Square传来打斗声。"


def test_a_fight_far_away_is_not_perceived():
    result = fight(ada="chapel")  # the chapel's way to the square carries no sound
    assert set(result.delivered_to) == {"ren"}


def test_delivery_without_the_first_event_reads_the_results_own_events():
    table = Table(party_world())
    result = table.act("ren", "go south")
    assert delivered_to(table.world, result, "ren") == result.delivered_to


# --- a whisper reaches only its addressee (decision 5) -----------------------------------------


def test_a_whisper_to_an_npc_keeps_its_words_from_the_others_present():
    table = Table(party_world())
    result = table.act("ren", "I whisper to Hilda: the ring is fake")
    assert result.delivered_to["ada"] == "Ren Ashby whispers something to the innkeeper."
    assert result.state.gm is not None
    private = [e for e in result.state.gm.events if e.kind in ("action", "talk")]
    assert private and all("ada" not in (*e.seen_by, *e.heard_by) for e in private)
    assert all(set(e.seen_by) == {"ren", "hilda"} for e in private)
    assert result.narration.startswith("Hilda Brant: “")  # she answers him


def test_the_others_learn_no_name_from_a_whisper():
    table = Table(party_world())
    result = table.act("ren", "I whisper to Hilda: tell me your name")
    assert result.state.gm is not None
    assert "hilda" not in result.state.gm.characters["ada"].known_names


def test_a_whisper_to_another_character_reaches_him_and_no_npc_answers():
    table = Table(party_world())
    result = table.act("ren", "I whisper to Ada: meet me at the mill")
    assert "meet me at the mill" in result.delivered_to["ada"]
    assert not [e for e in result.events if e.kind == "talk"]
    assert result.state.gm is not None
    [action] = [e for e in result.state.gm.events if e.kind == "action"]
    assert set(action.seen_by) == {"ren", "ada"}
    [aside] = [e for e in result.state.gm.events if e.kind == "whisper"]
    assert aside.seen_by == ["hilda"] and "meet" not in aside.text


def test_a_whisper_in_spanish_and_in_chinese():
    spanish = Table(party_world("es")).act("ren", "le susurro a Hilda: el anillo es falso")
    assert "anillo" not in spanish.delivered_to["ada"]
    assert spanish.delivered_to["ada"].startswith("Ren Ashby le susurra algo a")
    chinese = Table(party_world("zh")).act("ren", "我低声对Hilda说：戒指是假的")
    assert "戒指" not in chinese.delivered_to["ada"]
    assert chinese.delivered_to["ada"].startswith("Ren Ashby对")


def test_words_said_aloud_are_not_a_whisper():
    table = Table(party_world())
    result = table.act("ren", "Hilda, the ring is fake!")
    assert "the ring is fake" in result.delivered_to["ada"]


def test_a_whisper_to_the_live_master_keeps_its_closing_event_private():
    reply = {
        "narration": "Hilda leans close.",
        "bubbles": [{"speaker": "hilda", "text": "I know."}],
    }
    table = Table(party_world(), provider=Scripted([ToolCall("c1", "log_event", reply)]))
    result = table.act("ren", "I whisper to Hilda: the ring is fake")
    [closing] = [e for e in result.events if e.kind == "master"]
    assert set(closing.seen_by) == {"ren", "hilda"}
    assert result.delivered_to == {
        "ren": result.narration,
        "ada": "Ren Ashby whispers something to the innkeeper.",
    }


def test_a_whisper_with_nobody_else_present_logs_no_aside():
    table = Table(party_world(ada="square"))
    result = table.act("ren", "I whisper to Hilda: the ring is fake")
    assert result.state.gm is not None
    assert not [e for e in result.state.gm.events if e.kind == "whisper"]
    assert set(result.delivered_to) == {"ren"}
