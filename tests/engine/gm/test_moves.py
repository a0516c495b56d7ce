"""engine.gm.moves: engine moves in English, Spanish and Chinese, their refusals and questions,
all at zero model calls."""

from __future__ import annotations

import pytest

from engine.gm.moves import classify
from tests.engine.gm.toolkit import call, demo_scene
from tests.engine.gm.worlds import demo_world, new_state, play, play_all, tiny_world

LANGS = ["en", "es", "zh"]


def at(result, character: str = "ren") -> str:
    assert result.state.gm is not None
    return result.state.gm.characters[character].location


def holder(result, item: str):
    assert result.state.gm is not None
    return result.state.gm.items[item]


# --- classification ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "target", "language"),
    [
        ("go north", "go", "north", "en"),
        ("I go to the market", "go", "market", "en"),
        ("n", "go", "n", "en"),
        ("Ir a la plaza", "go", "plaza", "es"),
        ("voy al norte", "go", "norte", "es"),
        ("去市场", "go", "市场", "zh"),
        ("往北走", "go", "北", "zh"),
        ("pick up the rope", "take", "rope", "en"),
        ("cojo la cuerda", "take", "cuerda", "es"),
        ("拿起绳子", "take", "绳子", "zh"),
        ("read the notices", "board", "", "en"),
        ("Leo los avisos", "board", "", "es"),
        ("/tablon", "board", "", "es"),
        ("看告示", "board", "", "zh"),
        ("wait until evening", "wait", "evening", "en"),
        ("等到晚上", "wait", "晚上", "zh"),
        ("look at the hearth", "look", "hearth", "en"),
        ("salgo", "leave", "", "es"),
        ("go back", "back", "", "en"),
    ],
)
def test_it_classifies_engine_moves(text, kind, target, language):
    move = classify(text, "en")
    assert move is not None
    assert (move.kind, move.target, move.language) == (kind, target, language)


@pytest.mark.parametrize(
    "text", ["sing a sad song", "attack the guard", "look for the key", "ask Hilda about Jory", ""]
)
def test_anything_else_is_left_to_the_master(text):
    assert classify(text, "en") is None


# --- moves in three languages ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("go south", "You go south to Market Square."),
        ("voy al sur", "Vas hacia el sur, a Plaza del Mercado."),  # the world's es words
        ("往南走", "你往南走，来到集市广场。"),
    ],
)
def test_go_by_direction_moves_the_character_at_no_cost(text, expected):
    world = demo_world()
    result = play(world, new_state(world), text, "ren")
    assert (result.kind, result.model_calls, result.location) == ("engine", 0, "square")
    assert result.narration.startswith(expected)
    assert result.changes["location"] == {"from": "the-wayfarer", "to": "square"}


@pytest.mark.parametrize("text", ["go to the market", "ir a la plaza", "去市场"])
def test_go_by_place_name(text):
    world = demo_world()
    assert play(world, new_state(world), text, "ren").location == "square"


@pytest.mark.parametrize("text", ["leave", "salgo de la taberna", "离开"])
def test_leave_takes_the_only_open_way(text):
    world = demo_world()
    result = play(world, new_state(world), text, "ren")
    assert (result.kind, result.location) == ("engine", "square")


@pytest.mark.parametrize("text", ["go to the table", "voy a la table", "去table"])
def test_go_to_a_point_and_leave_it(text):
    world = tiny_world()
    first, second = play_all(world, [text, "leave"])
    assert first.kind == "engine" and first.changes["point"] == {"from": None, "to": "table"}
    assert second.changes["point"] == {"from": "table", "to": None}


@pytest.mark.parametrize(
    ("take", "drop"),
    [
        ("take the rope", "drop the rope"),
        ("cojo la cuerda", "suelto la cuerda"),
        ("拿起绳子", "放下绳子"),
    ],
)
def test_take_and_drop_move_the_item(take, drop):
    world = demo_world()
    taken, dropped = play_all(world, [take, drop], "ren")
    assert taken.kind == dropped.kind == "engine"
    assert holder(taken, "rope").character == "ren"
    assert holder(dropped, "rope").location == "the-wayfarer"
    assert taken.changes["items"]["rope"] == {
        "from": {"location": "the-wayfarer", "point": "hearth"},
        "to": {"character": "ren"},
    }


@pytest.mark.parametrize(
    ("text", "time", "narration"),
    [
        ("wait", "afternoon", "Time passes. It is now afternoon of day 1."),
        ("espero hasta la noche", "night", "Esperas hasta la noche. Ahora es la noche del día 1."),
        ("等到早上", "morning", "你一直等到早上。现在是第2天早上。"),
    ],
)
def test_wait_advances_the_clock(text, time, narration):
    world = demo_world()
    result = play(world, new_state(world), text, "ren")
    assert result.kind == "engine"
    assert result.state.gm is not None and result.state.gm.clock.time_of_day == time
    assert result.narration.startswith(narration)


@pytest.mark.parametrize(
    "text", ["read the notices", "/board", "leo los avisos", "/tablon", "看告示"]
)
def test_reading_the_board_puts_its_notices_in_the_journal(text):
    world = demo_world()
    state = new_state(world)
    result = play(world, state, text, "ada")  # Ada starts in the square
    assert result.kind == "engine"
    assert result.changes["journal"]["added"] == ["reward-chalice", "carters-wanted", "stray-dog"]
    assert result.state.gm is not None
    journal = result.state.gm.characters["ada"].journal
    assert [j.ref for j in journal] == ["reward-chalice", "carters-wanted", "stray-dog"]
    again = play(world, result.state, text, "ada")
    assert "journal" not in again.changes


def test_passing_the_board_does_not_fill_the_journal():
    world = demo_world()
    result = play_all(world, ["go south", "look around"], "ren")[-1]
    assert result.state.gm is not None and result.state.gm.characters["ren"].journal == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("look at the hearth", "the hearth: A wide stone fireplace"),
        ("miro la chimenea", "la chimenea: Una amplia chimenea de piedra"),
        ("看壁炉", "壁炉：宽大的石砌壁炉"),
    ],
)
def test_look_at_a_point(text, expected):
    world = demo_world()
    result = play(world, new_state(world), text, "ren")
    assert result.kind == "engine" and result.narration.startswith(expected)


def test_a_click_on_a_place_goes_there_and_on_a_board_point_reads_it():
    world = demo_world()
    went, read = play_all(
        world, [{"click": {"location": "square"}}, {"click": {"point": "notice-post"}}], "ren"
    )
    assert (went.kind, went.location) == ("engine", "square")
    assert read.changes["journal"]["added"][0] == "reward-chalice"


def test_engine_moves_log_events_seen_by_whoever_is_there():
    world = demo_world()
    result = play(world, new_state(world), "go south", "ren")
    left, arrived = result.events
    assert (left.kind, left.location, left.text) == (
        "go",
        "the-wayfarer",
        "Ren Ashby goes south to Market Square.",
    )
    assert set(left.seen_by) == {"ren", "hilda"}
    assert set(arrived.seen_by) == {"ren", "ada", "greta"}


def test_the_input_state_is_not_changed():
    world = demo_world()
    state = new_state(world)
    first = play(world, state, "take the rope", "ren")
    assert state.gm is None
    second = play(world, first.state, "go south", "ren")
    assert at(first) == "the-wayfarer" and at(second) == "square"


# --- refusals and questions ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "go north",
            "There is no way north. You can go: south (Market Square), "
            "down (The Wayfarer's Cellar, locked).",
        ),
        (
            "voy al norte",
            "No hay camino hacia el norte. Puedes ir: sur (Plaza del Mercado), "
            "abajo (La Bodega del Caminante, cerrado).",
        ),
        (
            "往北走",
            "往北没有路。你可以去：南（集市广场）、下（客栈地窖，锁着）。",
        ),
        ("go down", "The way down to The Wayfarer's Cellar is locked."),
        (
            "take the moon",
            'There is no "moon" here to take. You can take: coil of rope, pewter tankard.',
        ),
        (
            "cojo la luna",
            "Aquí no hay «luna» que coger. Puedes coger: rollo de cuerda, jarra de peltre.",
        ),
        ("拿月亮", "这里没有可以拿的“月亮”。你可以拿：麻绳、白镴酒杯。"),
        ("drop the moon", 'You are not carrying "moon". You carry: dagger.'),
        ("read the notices", "There is no notice board here."),
        ("look at the dragon", 'You see no "dragon" here.'),
        ("take the ring", "silver signet ring belongs to Greta Vell: it is not yours to take."),
    ],
)
def test_impossible_moves_are_refused_listing_what_is_possible(text, expected):
    world = demo_world()
    state = new_state(world)
    if "ring" in text:
        state = play(world, state, "go south", "ren").state
    result = play(world, state, text, "ren")
    assert (result.kind, result.model_calls, result.events) == ("refused", 0, [])
    assert result.narration.startswith(expected)
    assert result.state.gm is not None and result.state.gm.events == (
        state.gm.events if state.gm else []
    )


def test_a_known_place_that_is_not_next_door_is_refused():
    world = demo_world()
    result = play_all(world, ["go south", "go east", "go to the inn"], "ren")[-1]
    assert (result.kind, result.narration) == (
        "refused",
        "The Wayfarer's Rest is not reachable directly from here. "
        "You can go: west (Market Square), east (The Old Mill).",
    )


def test_a_stranger_is_named_by_trade():
    world = demo_world()
    result = play_all(world, ["go south", "go in", "take the bread"], "ren")[-1]
    assert result.narration == "loaf of bread belongs to shopkeeper: it is not yours to take."


def test_an_ambiguous_name_lists_the_options():
    world = tiny_world()
    result = play(world, new_state(world), "take the key")
    assert (result.kind, result.narration) == ("refused", "Which do you mean: red key, blue key?")


def test_items_at_an_undiscovered_hidden_point_cannot_be_taken_or_seen():
    world = tiny_world()
    result = play(world, new_state(world), "take the coin")
    assert result.kind == "refused" and "gold coin" not in result.narration
    assert "sliding panel" not in play(world, new_state(world), "look").narration


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("take", "Take what? You can take: coil of rope, red key, blue key."),
        ("coger", "¿Qué coges? Puedes coger: coil of rope, red key, blue key."),
        ("go", "Go where? You can go: north (Stable Yard), east (Vault, locked)."),
        ("drop", "Drop what? You carry: sword."),
    ],
)
def test_a_move_without_a_target_asks_at_no_cost(text, expected):
    world = tiny_world()
    result = play(world, new_state(world), text)
    assert (result.kind, result.model_calls, result.narration) == ("ask", 0, expected)


def test_several_actions_resolve_the_first_and_suggest_the_rest():
    world = demo_world()
    result = play(world, new_state(world), "take the rope, then go south", "ren")
    assert result.kind == "engine" and result.location == "the-wayfarer"
    assert result.narration.endswith("One thing at a time: the rest waits in the suggestions.")
    assert result.suggestions[0] == "go south"


def test_go_back_returns_the_way_the_character_came():
    world = demo_world()
    results = play_all(world, ["go south", "go back", "go back"], "ren")
    assert [r.location for r in results] == ["square", "the-wayfarer", "square"]


@pytest.mark.parametrize(
    ("text", "place", "thing", "person"),
    [
        ("look around the room", "The Wayfarer's Rest", "coil of rope", "Hilda Brant"),
        ("miro a mi alrededor", "La Posada del Caminante", "rollo de cuerda", "Hilda Brant"),
        ("看看四周", "旅人客栈", "麻绳", "希尔达·布兰特"),
    ],
)
def test_looking_around_describes_the_place_and_what_is_in_it(text, place, thing, person):
    world = demo_world()
    result = play(world, new_state(world), text, "ren")
    assert result.kind == "engine" and result.narration.startswith(place)
    assert thing in result.narration and person in result.narration


def test_chinese_go_verbs_take_a_following_particle():
    world = demo_world()
    assert play(world, new_state(world), "走进商店", "ada").location == "store"


# --- places he has not discovered (issue 32, finding 7) ------------------------------------


@pytest.mark.parametrize(
    ("language", "unknown", "mill_word", "inn"),
    [
        (
            "en",
            "That is somewhere you don't know: no way you know of leads there from here.",
            "mill",
            "The Wayfarer's Rest",
        ),
        (
            "es",
            "Es un lugar que no conoces: ningún camino que sepas lleva allí desde aquí.",
            "molino",
            "La Posada del Caminante",
        ),
        ("zh", "那是你不知道的地方：从这里没有你知道的路通往那里。", "磨坊", "旅人客栈"),
    ],
)
def test_a_click_on_a_place_he_has_not_discovered_names_nothing(language, unknown, mill_word, inn):
    world = demo_world()
    mill = play(
        world, new_state(world), {"click": {"location": "old-mill"}}, "ren", language=language
    )
    assert (mill.kind, mill.model_calls, mill.events) == ("refused", 0, [])
    assert mill.narration.startswith(unknown) and mill_word not in mill.narration.casefold()
    made_up = play(
        world, new_state(world), {"click": {"location": "narnia"}}, "ren", language=language
    )
    assert made_up.narration == mill.narration  # no answer tells a real place from a made-up one
    walked = ["go south", "go east", {"click": {"location": "the-wayfarer"}}]
    known = play_all(world, walked, "ren", language=language)[-1]  # he has been to the inn
    assert known.kind == "refused" and inn in known.narration


def test_the_masters_move_to_a_place_he_has_not_discovered_is_refused_without_its_name():
    scene = demo_scene()
    refused = call(scene, "move_character", to="old-mill")
    assert refused.ok is False and "mill" not in refused.error.casefold()
    assert "somewhere you don't know" in refused.error
    assert call(scene, "move_character", to="square").ok  # a way he sees is his to take


@pytest.mark.parametrize(("text", "way"), [("进去", "进去"), ("出去", "出去"), ("里面", "里面")])
def test_a_chinese_way_that_starts_like_a_verb_is_a_way(text, way):
    move = classify(text, "zh")
    assert move is not None and (move.kind, move.target) == ("go", way)
