"""The failed-tool rule reads effects, not phrases (issue 34 §1): after a failed purchase,
hand-over, move or clue, a narration that tells the effect as a state or a scene (the thing
served, set before the player or hanging from his hand; the player down in the place; the
clue named in front of him) is rejected, in English, Spanish and Chinese, while refusals,
empty pots, things served to someone else and barred doors pass."""

from __future__ import annotations

from typing import Any

import pytest

from engine.gm.closure import TurnFacts, check_closure
from tests.engine.gm.closure_corpus import Case, scene_of, turn_of

RULE = "failed-tool-narrated"
WORLDS = {"en": ("demo", "ren"), "es": ("valdehierro", "lia"), "zh": ("qingshi", "ache")}


def fired(language: str, tool: str, arguments: dict[str, Any], narration: str) -> bool:
    world, character = WORLDS[language]
    spec = {
        "scenario": {"world": world, "character": character},
        "tools": [{"name": tool, "arguments": arguments, "ok": False, "error": "No."}],
    }
    case = Case(RULE, language, "t", narration, True, spec)
    return RULE in check_closure(narration, TurnFacts(**turn_of(case)), scene_of(case)).violations


BUY = {"en": {"item": "stew"}, "es": {"item": "pan"}, "zh": {"item": "bun"}}


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Hilda ladles the stew into a bowl and sets it down in front of you."),
        ("en", "Hilda pushes a bowl of stew across the counter and wipes her hands."),
        ("en", "You receive your dinner with both hands and a grateful nod."),
        ("en", "Your supper arrives on a wooden tray, steam curling off the stew."),
        ("en", "Hilda tops up a bowl and passes it to you with a grin."),
        ("es", "Marta te deja delante una hogaza de pan con un trozo de queso."),
        ("es", "Marta te sirve una hogaza de pan recién salida del horno."),
        ("es", "Una hogaza de pan humea delante de ti."),
        ("zh", "小梅给你端来一笼热腾腾的馒头。"),
        ("zh", "两个馒头就摆在你面前，香气扑鼻。"),
    ],
)
def test_a_failed_purchase_told_as_served_or_set_before_the_player_is_rejected(language, narration):
    assert fired(language, "buy_item", BUY[language], narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Hilda serves the drover the last bowl of stew and spreads her hands."),
        ("en", "The bowl in front of you is empty; the stew ran out an hour ago."),
        ("en", "You would kill for a bowl of stew, but the pot is bare."),
        ("es", "Marta sirve la última hogaza al herrero y te mira con pena."),
        ("es", "Delante de ti solo queda la cesta vacía."),
        ("zh", "小梅把最后一个馒头端给了挑夫。"),
        ("zh", "你面前的蒸笼空空的，馒头早卖光了。"),
    ],
)
def test_a_failed_purchase_served_to_another_or_told_empty_passes(language, narration):
    assert not fired(language, "buy_item", BUY[language], narration)


@pytest.mark.parametrize(
    ("language", "arguments", "narration"),
    [
        ("en", {"item": "lantern", "to": "me"}, "The lantern dangles from your fist, lit."),
        ("en", {"item": "lantern", "to": "me"}, "Osric passes the lantern over the counter."),
        ("es", {"item": "llave", "to": "me"}, "Sales a la plaza con la llave en la mano."),
        ("zh", {"item": "key", "to": "me"}, "钥匙攥在你手里，沉甸甸的。"),
    ],
)
def test_a_failed_hand_over_told_as_held_is_rejected(language, arguments, narration):
    assert fired(language, "transfer_item", arguments, narration)


def test_a_hand_over_to_someone_else_is_no_hand_over_to_the_player():
    said = "Osric passes the lantern to his apprentice and turns away."
    assert not fired("en", "transfer_item", {"item": "lantern", "to": "me"}, said)


PLACE = {"en": {"to": "cellar"}, "es": {"to": "bodega"}, "zh": {"to": "cellar"}}


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Deep in the cellar now, you listen to the drip of water."),
        ("en", "You pick your way down into the cellar by the light of a stub of candle."),
        ("es", "Ya dentro de la bodega, te sacudes el polvo de la capa."),
        ("es", "Ya en la bodega, cuentas los barriles a la luz de una vela."),
        ("es", "Bajas los escalones de la bodega sin prisa."),
        ("zh", "你已经在地窖里了，酒香扑鼻。"),
        ("zh", "你顺着梯子摸了下去，地窖里黑漆漆的。"),
    ],
)
def test_a_failed_move_told_as_being_in_or_going_down_into_the_place_is_rejected(
    language, narration
):
    assert fired(language, "move_character", PLACE[language], narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "You wait at the top of the cellar steps; the door below is locked."),
        ("en", "You hear something shifting in the cellar, behind the barred door."),
        ("en", "You head down toward the cellar, but the door is bolted fast."),
        ("en", "You lean on the bar and stare down the steps toward the cellar."),
        ("es", "Empujas la puerta de la bodega: sigue cerrada con llave."),
        ("zh", "你走到地窖门口，门锁着，推不开。"),
    ],
)
def test_a_failed_move_that_stops_at_the_door_passes(language, narration):
    assert not fired(language, "move_character", PLACE[language], narration)


def test_a_failed_clue_named_in_front_of_the_player_is_rejected():
    said = "Right there before you: wet footprints, drying on the boards."
    assert fired("en", "grant_clue", {"clue": "wet-footprints"}, said)


def test_a_failed_clue_sought_but_not_found_passes():
    said = "You look for footprints near the back door, but the boards are dry."
    assert not fired("en", "grant_clue", {"clue": "wet-footprints"}, said)


def test_a_possessive_before_a_handing_verb_makes_it_a_noun():
    said = 'Osric\'s hand settles over the lantern. "Not for sale."'
    assert not fired("en", "transfer_item", {"item": "lantern", "to": "me"}, said)


HANDED = {
    "en": {"item": "lantern", "to": "me"},
    "es": {"item": "llave", "to": "me"},
    "zh": {"item": "key", "to": "me"},
}


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "The lantern now sits snug in your pack."),
        ("en", "You walk out with the lantern tucked into your coat."),
        ("es", "La llave ya descansa en tu bolsillo."),
        ("es", "Sales de la posada con la llave bien guardada en tu zurrón."),
        ("zh", "钥匙已经揣在你怀里了。"),
        ("zh", "那把钥匙此刻正躺在你的口袋里。"),
    ],
)
def test_a_failed_hand_over_told_as_carried_in_the_players_pocket_is_rejected(language, narration):
    assert fired(language, "transfer_item", HANDED[language], narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "You pat your pocket, but there is no lantern in it, of course."),
        ("es", "Te llevas la mano al bolsillo, pero la llave sigue en el cinto de Marta."),
        ("zh", "你摸了摸自己的口袋，钥匙还挂在小梅腰上。"),
    ],
)
def test_an_empty_pocket_or_the_item_on_its_owner_passes(language, narration):
    assert not fired(language, "transfer_item", HANDED[language], narration)


@pytest.mark.parametrize(
    ("language", "arguments", "narration"),
    [
        (
            "en",
            {"item": "lantern"},
            "You hold out your coins for the lantern, but Osric shakes his head.",
        ),
        (
            "es",
            {"item": "farol"},
            "Le tiendes unas monedas por el farol, pero Marta niega con la cabeza.",
        ),
        ("zh", {"item": "lantern"}, "你掏出钱想买灯笼，小梅摆了摆手。"),
    ],
)
def test_money_held_out_and_waved_away_is_no_purchase(language, arguments, narration):
    assert not fired(language, "buy_item", arguments, narration)


CLUE = {"en": {"clue": "wet-footprints"}, "es": {"clue": "huellas"}, "zh": {"clue": "footprints"}}


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "It comes to you all at once: someone came through the back door in wet boots."),
        ("en", "You see it now: the trail leads from the back door."),
        ("es", "Ya lo tienes claro: alguien entró por la puerta trasera."),
        ("zh", "你心里有数了，贼是从后门走的。"),
        ("zh", "看了一会儿，你总算搞明白了贼的去向。"),
    ],
)
def test_a_failed_clue_told_as_understood_is_rejected(language, narration):
    assert fired(language, "grant_clue", CLUE[language], narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "You stare at the floor, but you still don't get it."),
        ("es", "Miras el suelo un buen rato, pero no lo tienes claro."),
        ("zh", "你盯着地面看了半天，还是没搞明白。"),
    ],
)
def test_a_failed_clue_not_understood_passes(language, narration):
    assert not fired(language, "grant_clue", CLUE[language], narration)
