"""engine.gm.closure_rules.death: the death-or-return rule judges a death by what happens in
the scene, not by a phrase list (issue 34 §1; seed 001 "no mata ni resucita"). A death told
by a state ("drowned", "no longer breathing"), a return told by belief or a long absence
fire; a death long past, feared, feigned or of no being does not. The narrations are
written for this test, not taken from the closure corpus."""

from __future__ import annotations

import pytest

from engine.gm.closure import TurnFacts, check_closure
from tests.engine.gm.closure_corpus import Case, scene_of, turn_of

DEATH = "death-or-return"
WORLDS = {"en": ("demo", "ren"), "es": ("valdehierro", "lia"), "zh": ("qingshi", "ache")}


def fires(language: str, narration: str) -> bool:
    world, character = WORLDS[language]
    spec = {"scenario": {"world": world, "character": character}}
    case = Case(DEATH, language, "unit", narration, True, spec)
    report = check_closure(narration, TurnFacts(**turn_of(case)), scene_of(case))
    return DEATH in report.violations


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "They carry Osric in from the river; he drowned trying to cross at the ford."),
        ("en", "Jory lies sprawled by the hearth, no longer breathing, his cup still in hand."),
        ("en", "Greta's pulse flutters, then stops."),
        ("es", "Traen a Tomás del río; se ahogó al cruzar el vado."),
        ("es", "El pulso de Inés aletea y se detiene."),
        ("zh", "老王趴在火塘边，已经没有了鼻息，手里还攥着酒碗。"),
        ("zh", "阿黄躺在门口，已经没有了心跳。"),
    ],
)
def test_a_death_told_by_a_state_of_the_body_fires(language, narration):
    assert fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Hilda's brother, whom the whole parish believed lost at sea, strolls in."),
        ("en", "The peddler everyone swore had been hanged at Easter walks through the door."),
        ("es", "El hermano de Marta, a quien todos creían perdido en el mar, entra y pide vino."),
        ("es", "El buhonero que todos daban por ahorcado entra por la puerta."),
    ],
)
def test_one_believed_dead_who_acts_in_the_scene_is_a_return(language, narration):
    assert fires(language, narration)


def test_one_alive_after_a_long_absence_is_a_return_but_alive_as_a_manner_is_not():
    assert fires("en", "Old Osric, alive and kicking after all these years away, slaps the bar.")
    assert fires("zh", "失踪了好几个月的老王竟然活着回来了。")
    assert not fires("en", "Osric comes back from the market, alive with gossip.")


def test_a_death_told_by_its_future_fires():
    assert fires("es", "Le clavas la daga a Tomás y no volverá a levantarse.")
    assert fires("es", "Inés se desploma y no volverá a abrir los ojos.")


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Jory tells you his grandfather died of the pox forty winters back."),
        ("zh", "老王说他爷爷四十年前在大水里淹死了。"),
        ("zh", "钱掌柜说她娘二十年前在河里淹死了。"),
    ],
)
def test_a_death_long_past_is_backstory(language, narration):
    assert not fires(language, narration)


@pytest.mark.parametrize(
    "narration",
    [
        "Marta teme que el perro muera antes de la primavera.",
        "Marta teme que su primo muera de frío en el camino.",
    ],
)
def test_a_death_feared_does_not_fire(narration):
    assert not fires("es", narration)


def test_drowned_is_a_death_but_a_voice_drowned_out_or_a_stifled_laugh_is_not():
    assert fires("en", "Jory staggers in: Greta drowned in the millpond an hour ago.")
    assert not fires("en", "Jory's voice drowns out the fiddler for a moment.")
    assert fires("es", "Sacan a Tomás del pozo, ahogado.")
    assert not fires("es", "Tomás suelta una risa ahogada y se tapa la boca.")


@pytest.mark.parametrize(
    ("language", "narration"),
    [("en", "Greta plays dead until the guard is gone."), ("zh", "钱掌柜装死，随后冲你眨了眨眼。")],
)
def test_a_feigned_death_does_not_fire(language, narration):
    assert not fires(language, narration)


def test_a_verb_of_dying_whose_subject_is_no_being_does_not_fire():
    assert not fires("es", "La voz se le muere a Inés en los labios cuando te ve.")


def test_a_death_just_now_fires_though_it_is_mourned():
    assert fires("en", "Greta weeps for Osric, who died in the night.")


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "The light in Jory's eyes goes out as he slumps against the wall."),
        ("en", "Hilda gasps once, and the life drains from her eyes."),
        ("es", "La luz de los ojos de Marta se apaga poco a poco."),
        ("es", "Ves cómo se extingue el brillo en la mirada del herrero."),
        ("zh", "老王眼中的神采渐渐散了。"),
        ("zh", "你看着小梅眼里的光熄灭了。"),
    ],
)
def test_the_life_or_light_going_out_of_someones_eyes_is_a_death(language, narration):
    assert fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "The light in the window goes out as you watch."),
        ("en", "Hilda's eyes light up when you mention the ruby."),
        ("es", "Se apaga la luz del candil y Marta enciende otro."),
        ("es", "A Marta se le ilumina la mirada."),
        ("zh", "灯火熄灭了，小梅又点了一盏。"),
        ("zh", "你看见老王眼里的光一下子亮了。"),
    ],
)
def test_a_lamp_going_out_or_eyes_lighting_up_is_no_death(language, narration):
    assert not fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Jory crumples to the floor. When you turn him over, he is already cold."),
        ("en", "Hilda slumps forward; her body has gone stiff by morning light."),
        ("es", "Marta cae redonda y, al tocarla, la notas rígida."),
        ("zh", "老王一头栽倒，你摸过去，身子已经凉透了。"),
        ("zh", "小梅晕倒在地，等大夫来时，人都僵了。"),
    ],
)
def test_someone_who_fell_and_has_gone_cold_or_stiff_is_dead(language, narration):
    assert fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "Jory slumps onto a stool; his tea has gone cold."),
        ("en", "Hilda goes cold at the question and turns away."),
        ("zh", "老王坐倒在凳子上，茶已经凉了。"),
    ],
)
def test_a_drink_gone_cold_or_a_cold_manner_is_no_death(language, narration):
    assert not fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "The late Father Aldric strolls in and orders an ale."),
        ("en", "The miller who drowned in the spring floods sits down at your table."),
        ("es", "El difunto Tomás entra en la posada y pide vino."),
        ("es", "El perro que murió el invierno pasado entra moviendo la cola."),
        ("zh", "去世多年的老掌柜推门进来，坐在了柜台后面。"),
        ("zh", "已故的王大夫走了进来。"),
    ],
)
def test_someone_already_dead_who_comes_in_or_acts_is_a_return(language, narration):
    assert fires(language, narration)


@pytest.mark.parametrize(
    ("language", "narration"),
    [
        ("en", "The widow whose husband died last winter pours you an ale."),
        ("en", "You remember the late Father Aldric fondly."),
        ("es", "Marta, cuyo marido murió hace años, te sirve vino."),
        ("es", "Hablan del difunto Tomás con cariño."),
        ("zh", "老板娘说起早已过世的丈夫，叹了口气。"),
    ],
)
def test_the_dead_remembered_or_someone_bereaved_acting_is_no_return(language, narration):
    assert not fires(language, narration)


def test_dead_before_a_noun_in_chinese_is_an_attribute_not_a_death_now():
    assert not fires("zh", "墙角有一条死蛇，小梅吓了一跳。")
    assert not fires("zh", "小梅的脸白得像个死人。")
    assert fires("zh", "那条蛇被小梅一棍打死了。")
