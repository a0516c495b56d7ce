"""engine.gm.suggest: the leak filter's table in three languages (seed 001 "Acciones sugeridas";
decision 17), the names a narration delivers, and the offline suggestions drawn from the
character and from what just happened."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from engine.gm.scene import Scene
from engine.gm.state import log_event
from engine.gm.suggest import filter_suggestions, learn_names, names_in, offline_suggestions
from engine.world import load_world
from tests.engine.gm.toolkit import demo_scene
from tests.engine.gm.worlds import demo_data, new_state, scene_for

# Per language: how the world names and trades its people (the demo world, translated).
PEOPLE: dict[str, dict[str, dict[str, Any]]] = {
    "en": {},
    "es": {
        "hilda": {"name": "Hilda Brant", "trade": "tabernera"},
        "father-aldric": {"name": "Padre Aldric", "aliases": ["aldric"], "trade": "cura"},
        "ash": {"name": "Ceniza", "aliases": ["ceniza"], "trade": "perro callejero"},
        "osric": {"trade": "tendero"},
    },
    "zh": {
        "hilda": {"name": "希尔达", "aliases": ["希尔达"], "trade": "酒馆老板娘"},
        "father-aldric": {"name": "奥尔德里克神父", "aliases": ["奥尔德里克"], "trade": "神父"},
        "ash": {"name": "灰烬", "aliases": ["灰烬"], "trade": "流浪狗"},
        "jory": {"name": "乔里", "aliases": ["乔里"], "trade": "马夫"},
    },
}


def scene_in(language: str, known: list[str]) -> Scene:
    data = copy.deepcopy(demo_data())
    data["language"] = language
    for npc in data["gameMaster"]["npcs"]:
        npc.pop("translations", None)  # these rows name people as PEOPLE says, not as the demo
        npc.update(PEOPLE[language].get(npc["id"], {}))
    data["gameMaster"]["characters"][0]["knownNames"] = known
    world = load_world(data)
    return scene_for(world, new_state(world), "ren", language)


ROWS = [
    # language, known names, just named, suggestions → what the player sees
    ("en", ["hilda"], [], ["Ask Hilda about the cellar"], ["Ask Hilda about the cellar"]),
    ("en", [], [], ["Ask Hilda about the cellar"], ["Ask the innkeeper about the cellar"]),
    ("en", [], [], ["Father Aldric might know"], ["The priest might know"]),
    ("en", [], [], ["Ask Osric for rope", "Wait"], ["Ask the shopkeeper for rope", "Wait"]),
    ("en", [], [], ["Follow Ash to the mill", "Look around"], ["Look around"]),
    ("en", [], ["Ash"], ["Call Ash back", "Look around"], ["Call Ash back", "Look around"]),
    ("en", [], ["jory"], ["Ask Jory about the dog"], []),  # the dog is Ash: never seen, never told
    ("en", [], [], ["Ask Jory about the dog", "Order a drink"], ["Order a drink"]),
    ("en", ["greta"], [], ["Pay Greta back", "Lift the trapdoor"], ["Pay Greta back"]),
    ("en", [], [], ["Head for The Old Mill", "Go south"], ["Go south"]),
    ("en", [], [], ["Eat", "eat", "Wait", "Sing", "Rest", "Go"], ["Eat", "Wait", "Sing", "Rest"]),
    ("es", [], [], ["Preguntar a Hilda por el sótano"], ["Preguntar a la tabernera por el sótano"]),
    ("es", [], [], ["Preguntar a Padre Aldric"], ["Preguntar al cura"]),
    ("es", [], [], ["Hablar con Osric", "Esperar"], ["Hablar con el tendero", "Esperar"]),
    ("es", [], [], ["Buscar a Ceniza", "Mirar alrededor"], ["Mirar alrededor"]),
    ("es", [], ["Ceniza"], ["Buscar a Ceniza", "Esperar"], ["Buscar a Ceniza", "Esperar"]),
    ("es", ["hilda"], [], ["Pedirle a Hilda otra jarra"], ["Pedirle a Hilda otra jarra"]),
    ("zh", [], [], ["问问希尔达地窖的事"], ["问问酒馆老板娘地窖的事"]),
    ("zh", [], [], ["和奥尔德里克神父谈谈"], ["和神父谈谈"]),
    ("zh", [], [], ["去找灰烬", "四处看看"], ["四处看看"]),
    ("zh", [], ["灰烬"], ["去找灰烬", "四处看看"], ["去找灰烬", "四处看看"]),
    ("zh", [], [], ["跟着乔里", "等一等"], ["等一等"]),
    ("zh", ["hilda"], [], ["再问问希尔达"], ["再问问希尔达"]),
]  # fmt: skip


@pytest.mark.parametrize(("language", "known", "just_named", "given", "shown"), ROWS)
def test_the_leak_filter(language, known, just_named, given, shown):
    scene = scene_in(language, known)
    assert filter_suggestions(given, scene, just_named) == shown


def test_the_table_covers_three_languages_and_at_least_fifteen_rows():
    assert len(ROWS) >= 15 and {row[0] for row in ROWS} == {"en", "es", "zh"}


# --- names delivered ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Jory Brant grins at you.", ["jory"]),
        ("'Ask Jory,' she says.", ["jory"]),
        ("Father Aldric lights a candle.", ["father-aldric"]),
        ("You think of your father's ring.", []),
        ("A grey dog watches you, ashen with dust.", []),
    ],
)
def test_names_in_a_narration(text, names):
    assert names_in(demo_scene(), text) == names


def test_a_delivered_name_is_known_to_each_character_who_perceived_it():
    scene = demo_scene()
    assert learn_names(scene, "Osric Pell waves from the door.", ["ren", "ada"]) == {
        "ren": ["osric"],
        "ada": ["osric"],
    }
    assert learn_names(scene, "Osric Pell waves again.", ["ren"]) == {}


# --- offline ------------------------------------------------------------------------------------


def test_offline_gives_two_or_three_and_the_same_for_the_same_seed():
    scene = demo_scene()
    first = offline_suggestions(scene, "I look at the fire", random.Random(7))
    assert 2 <= len(first) <= 3
    assert offline_suggestions(scene, "I look at the fire", random.Random(7)) == first


def test_offline_reacts_to_who_he_just_spoke_to():
    scene = demo_scene()
    out = offline_suggestions(scene, "Hilda, how is business?", random.Random(1))
    assert out[0] == "Ask Hilda Brant something more"


def test_a_greedy_rogue_searches_the_fallen_before_praying_and_a_cleric_prays():
    rogue = demo_scene()
    rogue.state.npc_hp["hilda"] = 0
    out = offline_suggestions(rogue, "I hit her", random.Random(3))
    assert out[0] == "Search Hilda Brant"
    cleric = demo_scene("ada")
    cleric.state.npc_hp["greta"] = 0
    assert (
        offline_suggestions(cleric, "I hit her", random.Random(3))[0] == "Pray for the moneylender"
    )


def test_offline_draws_from_the_character_and_never_leaks_a_name():
    scene = demo_scene()
    scene.me.location = "east-road"  # Jory and the stray dog, whose names he has not heard
    seen = set()
    for seed in range(20):
        out = offline_suggestions(scene, "I walk on", random.Random(seed))
        assert 2 <= len(out) <= 3
        assert all("Ash" not in s for s in out)
        seen.update(out)
    assert "Talk to the stable hand" in seen  # by trade: his name unheard
    own = {"Check who is watching", "Look for something worth pocketing", "Ready the dagger"}
    assert seen & own


def test_offline_speaks_the_scenes_language():
    scene = scene_in("es", ["hilda"])
    out = offline_suggestions(scene, "Hilda, ¿qué tal?", random.Random(2))
    assert out[0] == "Preguntar algo más a Hilda Brant"
    zh = scene_in("zh", [])
    assert offline_suggestions(zh, "你好", random.Random(2))[0] == "和酒馆老板娘聊聊"


# --- issue 34 §4: plans, what an unknown NPC is, near-duplicates -------------------------------

FILTERED = [
    # language, known names, what he was just told, suggestions → what the player sees
    ("es", [], "", ["Mañana iré al templo a confesarme", "Esperar"], ["Esperar"]),
    ("en", [], "", ["Tomorrow I'll pray at the altar", "Later, ask around", "Wait"], ["Wait"]),
    ("zh", [], "", ["明天我去教堂", "之后再问问", "等一等"], ["等一等"]),
    ("es", [], "", ["Preguntar por el perro", "Mirar alrededor"], ["Mirar alrededor"]),
    ("en", [], "", ["Whistle for the dog", "Look around"], ["Look around"]),
    ("zh", [], "", ["去找那条狗", "四处看看"], ["四处看看"]),
    ("es", [], "Ceniza no vuelve.", ["Buscar a Ceniza", "Buscar al perro"], ["Buscar a Ceniza"]),
    ("en", [], "Ash still isn't back.", ["Look for Ash", "Look for the dog"], ["Look for Ash"]),
    ("es", [], "Ceniza, la perra de Jory, no vuelve.", ["Buscar a Ceniza", "Buscar al perro"],
     ["Buscar a Ceniza"]),
    ("en", [], "Jory says his dog ran off.", ["Ask Jory about the dog"],
     ["Ask Jory about the dog"]),
    ("en", [], "", ["Ask about the chalice", "Ask about the missing chalice"],
     ["Ask about the chalice"]),
    ("es", [], "", ["Preguntar por el cáliz", "Preguntar por el cáliz perdido"],
     ["Preguntar por el cáliz"]),
    ("en", [], "", ["Lift the trapdoor", "Peek into the old mill"], []),
    ("es", [], "", ["Pedirle la bendición al Padre Aldric"], ["Pedirle la bendición al cura"]),
    ("es", [], "", ["Ir al norte", "Ir al este"], ["Ir al norte", "Ir al este"]),
    ("en", [], "", ["Warm your hands by the fire", "Ask when the caravan leaves tomorrow"],
     ["Warm your hands by the fire", "Ask when the caravan leaves tomorrow"]),
]  # fmt: skip


@pytest.mark.parametrize(("language", "known", "heard", "given", "shown"), FILTERED)
def test_plans_kind_words_and_repeats_are_left_out(language, known, heard, given, shown):
    scene = scene_in(language, known)
    learn_names(scene, heard, ["ren"])
    assert filter_suggestions(given, scene, (), heard=heard) == shown


def test_a_kind_word_he_read_earlier_or_sees_now_is_no_leak():
    scene = scene_in("en", [])
    dog = ["Follow the dog", "Look around"]
    assert filter_suggestions(dog, scene, ()) == ["Look around"]
    log_event(
        scene.state, "master", "ren", "the-wayfarer", "A grey dog slinks off.", seen_by=["ren"]
    )
    assert filter_suggestions(dog, scene, ()) == dog
    there = scene_in("en", [])
    there.me.location = "east-road"  # Ash is there: he sees a dog
    assert filter_suggestions(dog, there, ()) == dog


def test_a_suggestion_naming_a_hidden_point_by_another_wording_is_dropped():
    scene = scene_in("en", [])
    assert filter_suggestions(["Pry open the trapdoors", "Look around"], scene, ()) == [
        "Look around"
    ]
