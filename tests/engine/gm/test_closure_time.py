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


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("es", "Cuando acabas la segunda jarra, ya ha caído la noche sobre el pueblo."),
        ("es", "La tarde se echa encima mientras Tomás repasa sus cuentas."),
        ("es", "Ha llegado la madrugada y la chimenea apenas humea."),
        ("es", "Despunta ya el alba tras los tejados."),
        ("es", "La noche os sorprende todavía discutiendo junto al fuego."),
        ("es", "La medianoche te pilla con la jarra vacía."),
        ("en", "By the time Jory finishes, evening has crept in over the square."),
        ("en", "Darkness slowly settles over the village."),
        ("en", "Dusk catches you still arguing at the bar."),
        ("zh", "中午早已过了，小梅还在擦那张桌子。"),
        ("zh", "不知不觉，下午就这么过了。"),
        ("zh", "半夜过去了，老王还没回来。"),
    ],
)
def test_a_time_of_day_told_as_arriving_passing_or_finding_someone_moves_the_clock(
    language, narration
):
    assert fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("es", "Marta llega por la tarde, te dice, nunca antes."),
        ("es", "Recuerdas la noche que llegaste a Valdehierro."),
        ("es", "El día en que te encontró, Tomás llevaba una capa roja."),
        ("es", "La luz de la tarde cae sobre la barra."),
        ("es", "Tomás habla de la noche en que cayó el puente."),
        ("en", "You remember the night you came to the village."),
        ("en", "The night watchman finds you a stool by the fire."),
        ("en", "The evening light falls across the table."),
        ("en", "The morning bread arrives warm from the oven."),
        ("zh", "中午过了再来吧，老板娘说。"),
        ("zh", "你打算下午过去找她。"),
    ],
)
def test_a_time_of_day_that_only_dates_or_qualifies_something_does_not(language, narration):
    assert not fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("es", "Aguardas en la esquina hasta que oscurece del todo."),
        ("es", "Charlas con Tomás hasta que sale el sol."),
        ("en", "You keep watch at the door until the sun comes up."),
        ("en", "You and Hilda talk until night falls."),
    ],
)
def test_staying_until_the_hour_turns_moves_the_clock(language, narration):
    assert fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("es", "Esperarás hasta que anochezca, te dice Marta."),
        ("es", "Decides quedarte hasta que oscurezca."),
        ("en", "You'll have to wait until the sun goes down."),
        ("en", "She tells you to wait until dark falls."),
    ],
)
def test_until_in_a_plan_an_order_or_the_subjunctive_does_not(language, narration):
    assert not fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("es", "Se os van las horas jugando a los dados."),
        ("es", "Se le pasan las horas a Marta remendando la red."),
        ("zh", "等你从账本里抬起头，窗外已经黑了。"),
    ],
)
def test_hours_slipping_away_or_looking_up_to_a_dark_window_moves_the_clock(language, narration):
    assert fires(language, narration)


def test_a_glance_away_or_a_look_up_without_the_sky_changing_does_not():
    assert not fires("es", "Se te van los ojos hacia la gema.")
    assert not fires("zh", "等你抬起头，老板娘已经走开了。")


@pytest.mark.parametrize(
    "narration",
    [
        "Anochecía cuando Tomás terminó su relato.",
        "Ya clareaba cuando por fin dejaste la jarra.",
        "Dormitas un rato y, al despertar, la tarde ya ha caído.",
        "Cuando quieres darte cuenta, ya es noche cerrada.",
    ],
)
def test_spanish_day_verbs_in_the_imperfect_or_perfect_move_the_clock(narration):
    assert fires("es", narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("es", "Mañana al amanecer saldrá la caravana."),
        ("es", "Marta dice que se hace de noche muy pronto en invierno."),
        ("en", "At dawn the caravan will leave without you."),
    ],
)
def test_a_time_in_a_future_or_a_seasonal_habit_does_not_move_the_clock(language, narration):
    assert not fires(language, narration)
