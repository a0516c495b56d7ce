"""engine.gm.closure_rules.time: the time-advanced rule judges whether the clock moves in the
scene (issue 34 §1; seed 001 "Adelanta el tiempo"). A bell or a watchman telling an hour,
the night settling slowly, a span spent in Chinese fire; a habit, a likeness or a plan that
names a time does not. The narrations are written for this test, not taken from the closure
corpus."""

from __future__ import annotations

import pytest

from engine.gm.closure import TurnFacts, check_closure
from tests.engine.gm.closure_corpus import Case, scene_of, turn_of

TIME = "time-advanced"
WORLDS = {"en": ("demo", "ren"), "es": ("valdehierro", "lia"), "zh": ("qingshi", "ache")}


def fires(language: str, narration: str) -> bool:
    world, character = WORLDS[language]
    spec = {"scenario": {"world": world, "character": character}}
    case = Case(TIME, language, "unit", narration, True, spec)
    report = check_closure(narration, TurnFacts(**turn_of(case)), scene_of(case))
    return TIME in report.violations


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Somewhere outside, the watchman calls midnight, and still Jory talks on."),
        ("en", "The church bell strikes nine as Hilda stacks the last of the chairs."),
        ("es", "Fuera, el sereno canta la medianoche y Tomás sigue hablando."),
        ("es", "El reloj de la iglesia da las nueve mientras Marta apila las sillas."),
        ("zh", "外头更夫敲了二更，老王还在说个不停。"),
        ("zh", "城隍庙的钟敲了十二下，你终于推开了碗。"),
    ],
)
def test_a_bell_or_a_watchman_telling_an_hour_moves_the_clock(language, narration):
    assert fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Darkness slowly falls over the square while you wait."),
        ("en", "You talk with Greta until long after midnight."),
        ("es", "La noche cae poco a poco sobre la plaza mientras esperas."),
        ("zh", "暮色慢慢笼罩了广场，你还在等。"),
    ],
)
def test_the_night_settling_slowly_or_a_talk_into_the_night_moves_the_clock(language, narration):
    assert fires(language, narration)


def test_a_whole_week_spent_in_chinese_moves_the_clock_but_a_long_look_does_not():
    assert fires("zh", "你在店里擦了整整一个星期的桌子，才还清了账。")
    assert not fires("zh", "你盯着那扇门看了半天。")


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Jory says the mail coach generally arrives by noon."),
        ("en", "Every evening at dusk, Hilda lights the lamps herself."),
        ("es", "Tomás dice que la diligencia suele llegar a mediodía."),
    ],
)
def test_a_habit_that_names_a_time_does_not_move_the_clock(language, narration):
    assert not fires(language, narration)


def test_a_plan_to_wait_for_nightfall_does_not_move_the_clock():
    assert not fires("zh", "你想好了，等天黑了再去马厩。")
