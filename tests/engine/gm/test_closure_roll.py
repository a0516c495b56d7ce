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
