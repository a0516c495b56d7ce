"""The acting-for-another-player rule resolves who the narration means (issue 34 §1): the other
player's character named by any part of her name, by a description built from her sheet ("the
cleric in the grey cloak", "el hombre de la capa gris", "披着灰斗篷的那位女子"), or by a pronoun
that comes before her name; she is rejected as the doer of a deed the lexicon has no class for
("slams her fist"), of a deed told as settled in the future ("Bruno te acompañará") and of a
Spanish "a Bruno le parece…". Options offered, seeming, asking and other people pass."""

from __future__ import annotations

import pytest

from tests.engine.gm.closure_corpus import violations

RULE = "acts-for-player"


def fired(language: str, narration: str) -> bool:
    return RULE in violations(language, narration)


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


# --- round 6: states, not-yets, open choices, dialogue tags (sentences written for these tests)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Ada is quiet now, tired from the road."),
        ("en", "Ada stays close to the fire, if she likes."),
        ("en", "Whether Ada joins you, she has not said."),
        ("en", "What Ada does next is up to her."),
        ("es", "Bruno está a dos pasos de la puerta."),
        ("es", "Bruno todavía no ha dicho nada."),
        ("es", "Bruno puede acompañarte si quiere; es cosa suya."),
        ("zh", "林岚还没说话。"),
        ("zh", "林岚跟不跟你走，由她决定。"),
        ("en", "'Ada,' says Hilda, 'your friend is here.'"),
        ("en", "'Come with me,' you tell Ada."),
        ("es", "—Bruno, ven aquí —llama Marta."),
        ("zh", "“林岚，过来。”小梅招了招手。"),
        ("zh", "你还没开口，小梅已经把酒端了上来。"),
    ],
)
def test_a_state_a_not_yet_an_open_choice_or_someone_elses_line_is_left_to_her(
    language: str, narration: str
) -> None:
    assert not fired(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Your companion in the hood snatches the key when no one is watching."),
        ("en", "'Leave it,' snaps Ada."),
        ("en", "'We should go,' Ada mutters."),
        ("es", "—Déjalo ya —gruñe Bruno—. No merece la pena."),
        ("es", "—Vámonos —susurra Bruno."),
        ("zh", "“走吧。”林岚拽了拽你的衣角。"),
        ("zh", "“别动。”林岚按住你的手。"),
        ("zh", "你还没开口，林岚已经替你付了钱。"),
    ],
)
def test_her_line_by_its_tag_or_her_deed_past_a_description_is_acting_for_her(
    language: str, narration: str
) -> None:
    assert fired(language, narration)


@pytest.mark.parametrize(
    ("language", "narration", "acts"),
    [
        ("es", "El guerrero alto se encoge de hombros y pide otra jarra.", True),
        ("zh", "那个战士把剑往桌上一拍，要了一碗酒。", True),
        ("es", "Marta mira al guerrero alto de reojo.", False),
    ],
)
def test_her_class_said_in_the_narrations_language_describes_her(
    language: str, narration: str, acts: bool
) -> None:
    assert fired(language, narration) is acts
