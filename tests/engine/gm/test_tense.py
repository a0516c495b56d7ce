"""engine.gm.tense: a button that plans is read from the verb's future and from time words that
date the action (issue 34 §4); what is asked or said, a past, a modifier and a wait that starts
now are not plans."""

from __future__ import annotations

import pytest

from engine.gm.tense import plan_marker

PLANS = [
    ("en", "Tomorrow I'll go to the temple", "tomorrow"),
    ("en", "I'll confess tomorrow", "i'll"),
    ("en", "Come back later", "later"),
    ("en", "I'm going to ask Hilda", "going to ask"),
    ("en", "Wait until dark, then sneak in", "dark"),
    ("en", "At dawn, leave town", "dawn"),
    ("en", "Talk to Jory tomorrow", "tomorrow"),
    ("en", "When she leaves, search the bar", "when"),
    ("en", "Next time, bring rope", "next time"),
    ("en", "Head back to the inn in the morning", "morning"),
    ("en", "Sneak into the chapel after dark", "dark"),
    ("es", "Mañana iré al templo a confesarme", "mañana"),
    ("es", "Esta noche, colarse en la capilla", "esta noche"),
    ("es", "Voy a hablar con el cura", "voy a hablar"),
    ("es", "Jamás lo haré", "haré"),
    ("es", "Buscaremos la llave", "buscaremos"),
    ("es", "Al amanecer, salir del pueblo", "amanecer"),
    ("es", "Cuando se vaya, registrar la barra", "cuando"),
    ("es", "Volver más tarde", "más tarde"),
    ("zh", "明天我去神殿忏悔", "明天"),
    ("zh", "之后去磨坊看看", "之后"),
    ("zh", "等天亮了再出发", "等"),
    ("zh", "我要去神殿", "我要"),
    ("zh", "我会在这儿等她", "我会"),
    ("zh", "天黑的时候溜进去", "天黑"),
    ("zh", "我们将前往磨坊", "将"),
    # days of the week, relative weeks, "some other day", a time of day after an adjective
    ("en", "On Friday, meet Hilda at the well", "friday"),
    ("en", "Another day, climb the bell tower", "another day"),
    ("en", "Leave at early dawn", "dawn"),
    ("es", "El sábado volveré al molino", "sábado"),
    ("es", "Iré al mercado", "iré"),
    ("es", "El mes que viene, hablar con el alcalde", "el mes que viene"),
    ("es", "A primera hora, buscar al herrero", "a primera hora"),
    ("zh", "周六去磨坊找她", "周六"),
    ("zh", "下个月再来还钱", "下个月"),
    ("zh", "改天再来喝酒", "改天再来"),
    ("zh", "等雨停了去码头", "等"),
    ("zh", "吃完饭再去教堂", "再"),
]

NOT_PLANS = [
    ("en", "Ask about tomorrow's market"),
    ("en", "Ask Hilda whether she will come tonight"),
    ("en", "Look at the sunset"),
    ("en", "Rest until dawn"),
    ("en", "Will you help me?"),
    ("en", "Read the will"),
    ("en", "Ask about her late husband's will"),
    ("en", "I'm going to the market"),
    ("en", "Ask what happened last night"),
    ("en", "Go to the next room"),
    ("en", "Keep watch through the night"),
    ("es", "Preguntar qué pasará mañana"),
    ("es", "Preguntar por la fiesta de mañana"),
    ("es", "Esperar al anochecer"),
    ("es", "Vamos a la taberna"),
    ("es", "Ir a rezar"),
    ("es", "Está cerrado, jamás"),
    ("es", "Queremos pan"),
    ("es", "Mirar el atardecer"),
    ("es", "Preguntar cuándo vuelve"),
    ("es", "Dormir hasta la mañana"),
    ("zh", "问问她明天去不去"),
    ("zh", "问问明天的集市"),
    ("zh", "等到天亮"),
    ("zh", "要一杯麦酒"),
    ("zh", "向她要回戒指"),
    ("zh", "聊聊昨晚的事"),
    ("zh", "看看日落"),
    ("zh", "将戒指交给她"),
    ("zh", "再问问希尔达"),
    ("en", "Ask what happened last Friday"),
    ("en", "Ask about Sunday's mass"),
    ("es", "Preguntar por el mercado del sábado"),
    ("es", "Recordar el domingo pasado"),
    ("es", "Irse de la posada"),
    ("zh", "问问周六的集市"),
    ("zh", "再看看那口井"),
]


@pytest.mark.parametrize(("language", "text", "marker"), PLANS)
def test_a_plan_is_found_by_its_future_or_its_time(language, text, marker):
    assert plan_marker(text, language) == marker


@pytest.mark.parametrize(("language", "text"), NOT_PLANS)
def test_what_is_asked_past_or_starting_now_is_no_plan(language, text):
    assert plan_marker(text, language) is None


def test_the_table_covers_three_languages():
    assert {row[0] for row in PLANS} == {row[0] for row in NOT_PLANS} == {"en", "es", "zh"}
