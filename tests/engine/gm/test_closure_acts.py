"""The acting-for-another-player rule resolves who the narration means (issue 34 §1): the other
player's character named by any part of her name, by a description built from her sheet ("the
cleric in the grey cloak", "el hombre de la capa gris", "披着灰斗篷的那位女子"), or by a pronoun
that comes before her name; she is rejected as the doer of a deed the lexicon has no class for
("slams her fist"), of a deed told as settled in the future ("Bruno te acompañará") and of a
Spanish "a Bruno le parece…". Options offered, seeming, asking and other people pass."""

from __future__ import annotations

import pytest

from engine.gm.closure import TurnFacts, check_closure
from tests.engine.gm.closure_corpus import Case, scene_of, turn_of

RULE = "acts-for-player"
WORLDS = {"en": ("demo", "ren"), "es": ("valdehierro", "lia"), "zh": ("qingshi", "ache")}


def fired(language: str, narration: str) -> bool:
    world, character = WORLDS[language]
    spec = {"scenario": {"world": world, "character": character}}
    case = Case(RULE, language, "t", narration, True, spec)
    return RULE in check_closure(narration, TurnFacts(**turn_of(case)), scene_of(case)).violations


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "The cleric in the grey cloak slams her fist on the table and demands an ale."),
        ("en", "Thorne grabs your arm and pulls you toward the door."),
        ("en", "Before she leaves, Ada kisses the lantern sigil and whispers a blessing."),
        ("en", "Without a word, the priestess hands Hilda a silver coin."),
        ("en", "The tall woman with the lantern sigil shoulders the door open."),
        ("es", "El hombre de la capa gris pide otra jarra a Marta."),
        ("es", "Esteve te aparta de un empujón y sale a la plaza."),
        ("es", "Bruno te acompañará hasta la bodega, y no hay más que hablar."),
        ("es", "A Bruno le parece que Marta miente."),
        ("zh", "那个高挑的女子把斗篷一甩，大步走出了门。"),
        ("zh", "披着灰斗篷的那位女子拍了拍你的肩膀，转身上楼去了。"),
        ("zh", "林岚听完放声大笑。"),
    ],
)
def test_another_players_character_named_any_way_acting_is_rejected(
    language: str, narration: str
) -> None:
    assert fired(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "You could ask Ada whether she wants to come along."),
        ("en", "Ada seems lost in thought, her eyes on the chapel spire."),
        ("en", "The woman behind the bar wipes a mug and ignores you."),
        ("en", "Whatever Thorne decides, the door stays shut for now."),
        ("en", "Hilda slides a bowl toward Ada's empty seat."),
        ("es", "Podrías preguntarle a Bruno si quiere acompañarte."),
        ("es", "Miras al hombre de la capa gris; no sabes qué piensa."),
        ("es", "Le preguntas a Bruno si le parece bien."),
        ("zh", "你可以问问林岚愿不愿意一起去。"),
        ("zh", "林岚要做什么，由她自己说了算。"),
        ("zh", "小梅给林岚的座位上摆了一碗茶。"),
    ],
)
def test_options_seeming_and_other_people_pass(language: str, narration: str) -> None:
    assert not fired(language, narration)
