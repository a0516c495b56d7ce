"""The roll rule reads the effect the check was for (issue 34 §1; seed 001 "el desenlace
contradice la tirada"): after a failed perception check, seeing something at once is a success
told; after a failed climb, ending up on top; after a failed sneak, moving without a sound;
after failed persuasion, the listener nodding. Plain seeing, falls and creaks pass."""

from __future__ import annotations

import pytest

from engine.gm.closure import TurnFacts, check_closure
from tests.engine.gm.closure_corpus import Case, scene_of, turn_of

RULE = "contradicts-roll"
WORLDS = {"en": ("demo", "ren"), "es": ("valdehierro", "lia"), "zh": ("qingshi", "ache")}


def fired(language: str, check: str, narration: str, outcome: str = "failure") -> bool:
    world, character = WORLDS[language]
    spec = {
        "scenario": {"world": world, "character": character},
        "rolls": [{"check": check, "outcome": outcome}],
    }
    case = Case(RULE, language, "t", narration, True, spec)
    return RULE in check_closure(narration, TurnFacts(**turn_of(case)), scene_of(case)).violations


@pytest.mark.parametrize(
    ("language", "check", "narration"),
    [
        ("en", "perception", "Your keen eyes pick out a scratch on the bar's underside."),
        ("en", "perception", "You see at once that the rug has been moved."),
        ("en", "perception", "Your glance settles at once on a purse tucked behind a barrel."),
        ("es", "perception", "Al instante ves el brillo de una hoja bajo la mesa."),
        ("zh", "perception", "你一眼就看见柜台底下有东西在闪。"),
        ("en", "athletics", "You shin up the post and crouch atop the stable roof."),
        ("es", "athletics", "Te encaramas a la tapia y te quedas en lo alto, jadeando."),
        ("zh", "athletics", "你两下就翻上了院墙。"),
        ("en", "stealth", "Not a floorboard creaks as you cross to the stairs."),
        ("zh", "stealth", "你摸到楼梯口，一点声响也没有。"),
        ("zh", "persuasion", "老王听你讲完，慢慢点了点头。"),
        ("zh", "persuasion", "你这番话果然奏效，老王松了口。"),
    ],
)
def test_a_failed_check_told_through_its_effect_is_rejected(language, check, narration):
    assert fired(language, check, narration)


@pytest.mark.parametrize(
    ("language", "check", "narration"),
    [
        ("en", "perception", "You see the usual faces: carters, a dozing farmer, Hilda."),
        ("es", "perception", "Ves lo de siempre: arrieros, un perro y Marta tras la barra."),
        ("zh", "perception", "你看见的还是那几张老面孔。"),
        ("es", "athletics", "A media subida resbalas y caes sobre la paja."),
        ("en", "athletics", "You haul at the rope, but your hands slip and you drop back."),
        ("en", "stealth", "A floorboard creaks under your heel and Hilda looks up."),
        ("zh", "stealth", "脚下的木板吱呀一声，所有人都回过头来。"),
    ],
)
def test_plain_seeing_falls_and_noises_after_a_failed_check_pass(language, check, narration):
    assert not fired(language, check, narration)


def test_the_effect_cues_agree_with_a_successful_roll():
    assert not fired("en", "athletics", "You scramble up and perch atop the wall.", "success")


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("es", "Observas la barra y distingues con claridad una mancha de sangre."),
        ("es", "Tu mirada da al instante con la trampilla."),
        ("es", "Tus manos dan enseguida con un doblez en el forro."),
        ("zh", "你瞥了一眼，老王袖子里的刀看得真真切切。"),
    ],
)
def test_after_a_failed_look_seeing_plainly_or_lighting_on_it_is_a_success_told(
    language, narration
):
    assert fired(language, "perception", narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "You creep along the wall; Hilda doesn't even look up from her ledger."),
        ("es", "Cruzas el salón de puntillas y Tomás ni se inmuta."),
        ("es", "Te deslizas tras la barra; Marta sigue a lo suyo."),
        ("zh", "你贴着墙溜过去，老王头也没抬。"),
        ("zh", "你从小梅身后走过，她眼皮都没抬一下。"),
    ],
)
def test_after_a_failed_sneak_a_watcher_who_does_not_react_is_a_success_told(language, narration):
    assert fired(language, "stealth", narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "'Fine, fine, you win,' Hilda sighs. 'I'll tell you.'"),
        ("es", "—Me has convencido —admite Tomás—. Te lo contaré todo."),
        ("es", "—Vale, me rindo —dice Marta."),
        ("zh", "“好好好，说不过你，”老王摆摆手，“我说就是。”"),
        ("zh", "“你赢了，”小梅笑了，“告诉你就是。”"),
    ],
)
def test_after_failed_persuasion_the_listener_giving_in_aloud_is_a_success_told(
    language, narration
):
    assert fired(language, "persuasion", narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "You haul yourself up and drop down on the other side of the wall."),
        ("es", "Trepas la tapia y caes al otro lado sin un rasguño."),
        ("zh", "你攀上墙头，一跃跳到了墙那头。"),
    ],
)
def test_after_a_failed_climb_dropping_on_the_far_side_is_a_landing(language, narration):
    assert fired(language, "athletics", narration)


@pytest.mark.parametrize(
    ("language", "check", "narration"),
    [
        ("en", "perception", "You look around; the room is plainly empty of anything odd."),
        ("es", "perception", "Miras a tu alrededor y ves claramente que no hay nada raro."),
        ("en", "stealth", "You creep along the wall, and Hilda looks up sharply."),
        ("es", "stealth", "Cruzas de puntillas, pero Tomás levanta la vista al instante."),
        ("en", "persuasion", "'You win nothing from me,' Hilda snaps."),
        ("es", "persuasion", "—No te lo diré nunca —dice Marta."),
        ("zh", "persuasion", "“我才不告诉你，”老王冷笑。"),
        ("en", "athletics", "You lose your grip and fall back on this side of the wall."),
        ("es", "athletics", "Resbalas y caes de espaldas al suelo."),
    ],
)
def test_the_near_misses_of_those_effects_pass_a_failed_roll(language, check, narration):
    assert not fired(language, check, narration)
