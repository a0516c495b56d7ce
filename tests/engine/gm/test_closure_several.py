"""The several-actions rule counts the acting player's deeds chained in one narration (issue 34
§2): clauses of one subject ("you", the character's name, a Spanish second-person verb, a
Chinese clause with or without 你) joined by commas, "and", "then", "y", "然后", "又", each
head verb a deed of its own, whether the lexicon classes it or it merely stands as a verb
("saddle a horse", "sobornas al mozo", "牵出一匹马"). Handling the thing just taken ("and hold it
close"), one movement in two steps, a wish listed over several verbs ("you'd love to grab the
key and run", "你恨不得拿了钥匙就跑") and other people's deeds pass."""

from __future__ import annotations

import pytest

from tests.engine.gm.closure_corpus import violations

RULE = "several-actions"


def fired(language: str, narration: str) -> bool:
    return RULE in violations(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "You kick the stool aside, vault the bar and snatch the key from its hook."),
        ("en", "You shoulder your pack, nod to Hilda and march out into the rain."),
        ("en", "Ren buys a pie, wolfs it down and heads for the stables."),
        ("en", "You toss Hilda a coin, grab a candle and climb the stairs."),
        ("en", "You unbar the shutters, then vault through the window."),
        ("en", "You bribe the guard, saddle the mule and trot off toward the mill."),
        ("en", "You slam the shutters, bolt the door and douse the lamp."),
        ("es", "Sobornas al guardia, ensillas la mula y partes al trote hacia el molino."),
        ("es", "Apartas el taburete de una patada, saltas la barra y descuelgas la llave."),
        ("es", "Lía compra un pastel, se lo come de dos bocados y se va a los establos."),
        ("es", "Le lanzas una moneda a Marta, coges una vela y subes la escalera."),
        ("es", "Desatas la mula, cargas las alforjas y partes hacia el molino."),
        ("zh", "你一脚踢开凳子，翻过柜台，从钩子上摘下钥匙。"),
        ("zh", "阿澈买了个包子，三两口吃完，又朝马厩走去。"),
        ("zh", "你扔给小梅一枚铜钱，拿起一根蜡烛，上了楼。"),
    ],
)
def test_chained_deeds_of_the_player_are_rejected(language: str, narration: str) -> None:
    assert fired(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "You pick up the candle and hold it close to the wall."),
        ("en", "You cross the room, weaving between the tables."),
        ("en", "You'd love to grab the key and run, but Hilda is watching."),
        ("en", "You sit by the fire, rubbing your hands, and listen to the rain."),
        ("en", "Hilda pours an ale, wipes the bar and turns to another customer."),
        ("es", "Coges la vela y la acercas a la pared."),
        ("es", "Cruzas el comedor sorteando las mesas."),
        ("es", "Marta sirve una jarra, limpia la barra y atiende a otro cliente."),
        ("es", "Duermes hasta el alba; al despertar, ya han apagado los candiles."),
        ("zh", "你拿起蜡烛，把它凑近墙壁。"),
        ("zh", "你恨不得拿了钥匙就跑，可小梅正盯着你。"),
        ("zh", "小梅倒了碗酒，擦了擦柜台，又去招呼别的客人。"),
        ("zh", "你睡到天亮，醒来时炉火也已经灭了。"),
        ("zh", "你本想付了钱、拿上斗篷就走，可小梅拦住了你。"),
        ("en", "You tell Hilda you'll settle up, fetch your cloak and leave; she only shrugs."),
    ],
)
def test_one_deed_with_its_details_and_other_peoples_deeds_pass(
    language: str, narration: str
) -> None:
    assert not fired(language, narration)


# --- round 6: plans, mishaps, watched deeds, steps (sentences written for these tests)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Hilda sees you pick up the lantern, then the rope, then the key from the hook."),
        ("en", "You take the bread, then the cheese, then the jug of milk."),
        ("en", "You take the lantern, light it and walk down into the cellar."),
        ("es", "Marta te mira coger el pan, luego el queso y por último la jarra."),
        ("es", "Coges la cuerda, luego la linterna y por último bajas a la bodega."),
        ("zh", "小梅看着你拿了灯笼，又拿了绳子，最后下了地窖。"),
        ("zh", "你拿了个馒头，然后到后院去吃。"),
    ],
)
def test_watched_deeds_and_steps_under_one_verb_are_several_actions(
    language: str, narration: str
) -> None:
    assert fired(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Climbing the stairs and searching the attic is only a plan; for now you sit."),
        ("en", "You rest a hand on the door and push, but the hinge sticks and you stumble back."),
        ("en", "If you want, you could take the rope, then the lantern, then the key."),
        ("en", "Hilda watches you take the rope."),
        ("en", "You cross the lane to the inn, where the ale is cheaper."),
        ("es", "Tenías pensado coger la cuerda y bajar a la bodega, pero de momento solo miras."),
        ("es", "Si quieres, puedes coger la cuerda, luego la jarra y por último bajar."),
        ("es", "Cruzas la calle hasta la posada, donde el vino es más barato."),
        ("zh", "先拿灯笼再下地窖，这只是你的打算；眼下你还坐在火塘边。"),
        ("zh", "小梅看着你拿起绳子。"),
    ],
)
def test_a_plan_a_mishap_a_watched_single_deed_or_a_place_described_is_one_action(
    language: str, narration: str
) -> None:
    assert not fired(language, narration)


@pytest.mark.parametrize(
    ("narration", "several"),
    [
        ("你把后院翻了个遍，然后去了集市。", True),
        ("你把后院搜了个遍，便去集市看告示。", True),
        ("你把后院翻了个遍，什么也没找到。", False),
        ("你把后院找了一遍，一无所获。", False),
    ],
)
def test_a_chinese_search_told_as_going_over_every_inch_is_a_deed(
    narration: str, several: bool
) -> None:
    assert fired("zh", narration) is several
