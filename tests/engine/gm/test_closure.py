"""engine.gm.closure: each rule of the closure check on real-looking narrations in English,
Spanish and Chinese, three that must fire and three near misses that must not (seed 001
"Comprobación del cierre"; decision 15), plus the report and the templated fallback."""

from __future__ import annotations

from typing import Any

import pytest

from engine.gm.closure import RULES, VIOLATIONS, TurnFacts, check_closure, fallback_closure, read
from engine.gm.dice import Roll
from engine.gm.tools import ToolCall, ToolOutcome
from tests.engine.gm.toolkit import call, demo_scene

# --- the turns the narrations are checked against ----------------------------------------------


def failed(name: str, **arguments: Any) -> tuple[ToolCall, ToolOutcome]:
    return ToolCall("t1", name, arguments), ToolOutcome(False, {"code": "x"}, error="No.")


def applied(name: str, changes: dict[str, Any] | None = None, **arguments: Any):
    return ToolCall("t1", name, arguments), ToolOutcome(True, {"done": "."}, changes=changes or {})


def roll(outcome: str, kind: str = "check") -> Roll:
    return Roll(kind, "d20", [10], [], 15, outcome, False, "athletics", "normal", 10)  # type: ignore[arg-type]


NOTHING: dict[str, Any] = {}
NO_LANTERN = {"tool_calls": [failed("transfer_item", item="lantern", to="me")]}
A_DEBT = {"tool_calls": [applied("set_debt", debtor="me", creditor="greta", amount=5)]}
FAILED_ROLL = {"rolls": [roll("failure")]}
GOOD_ROLL = {"rolls": [roll("success")]}
MISSED = {"rolls": [roll("failure", "attack")]}
RESTED = {"tool_calls": [applied("rest", {"clock": {}}, kind="long")]}
TWO_ACTIONS = {"tool_calls": [applied("move_character", to="south"), applied("buy_item", item="x")]}
NPC_AND_CHECK = {
    "tool_calls": [
        applied("move_character", who="hilda", to="hearth"),
        applied("request_skill_check", check="stealth", dc=10),
    ]
}

FAILED = "failed-tool-narrated"
PLACE = "unknown-place"
DEAL = "unregistered-deal"
ROLL = "contradicts-roll"
ACTS = "acts-for-player"
DEATH = "death-or-return"
TIME = "time-advanced"
SEVERAL = "several-actions"

# rule, language, turn, narration, fires
ROWS: list[tuple[str, str, dict[str, Any], str, bool]] = [
    # failed-tool-narrated: the lantern was not handed over
    (FAILED, "en", NO_LANTERN, "Osric hands you the hooded lantern.", True),
    (FAILED, "en", NO_LANTERN, "You pocket the lantern and turn to go.", True),
    (FAILED, "en", NO_LANTERN, "Lantern in hand, you take it from the hook.", True),
    (FAILED, "en", NO_LANTERN, "Osric shakes his head; the lantern stays on its hook.", False),
    (FAILED, "en", NO_LANTERN, "Osric will not give you the lantern.", False),
    (FAILED, "en", NO_LANTERN, "You eye the lantern, but it is not yours to take.", False),
    (FAILED, "es", NO_LANTERN, "Osric te da el farol.", True),
    (FAILED, "es", NO_LANTERN, "Coges la linterna del mostrador.", True),
    (FAILED, "es", NO_LANTERN, "Guardas el farol en tu bolsa.", True),
    (FAILED, "es", NO_LANTERN, "Osric niega con la cabeza: el farol sigue en su gancho.", False),
    (FAILED, "es", NO_LANTERN, "Osric no te da el farol.", False),
    (FAILED, "es", NO_LANTERN, "Miras el farol un momento.", False),
    (FAILED, "zh", NO_LANTERN, "Osric把提灯递给你。", True),
    (FAILED, "zh", NO_LANTERN, "你接过灯笼，转身要走。", True),
    (FAILED, "zh", NO_LANTERN, "提灯现在归你了。", True),
    (FAILED, "zh", NO_LANTERN, "Osric没有把提灯递给你。", False),
    (FAILED, "zh", NO_LANTERN, "你看了看提灯。", False),
    (FAILED, "zh", NO_LANTERN, "Osric摇摇头，不肯把提灯交给你。", False),
    # unknown-place: the tavern has a bar, a hearth, a way down and a trapdoor not yet found
    (PLACE, "en", NOTHING, "You lift the rug and find a trapdoor beneath it.", True),
    (PLACE, "en", NOTHING, "A hidden tunnel opens behind the hearth.", True),
    (PLACE, "en", NOTHING, "Hilda points you to the smithy across the road.", True),
    (PLACE, "en", NOTHING, "You lean on the bar and watch the hearth.", False),
    (PLACE, "en", NOTHING, "There is no trapdoor here, only a damp rug.", False),
    (PLACE, "en", NOTHING, "Hilda glances at the cellar stairs.", False),
    (PLACE, "es", NOTHING, "Levantas la alfombra y descubres una trampilla.", True),
    (PLACE, "es", NOTHING, "Tras la barra se abre un pasadizo secreto.", True),
    (PLACE, "es", NOTHING, "Hilda señala la cripta bajo la capilla.", True),
    (PLACE, "es", NOTHING, "Te apoyas en la barra y miras la chimenea.", False),
    (PLACE, "es", NOTHING, "No hay ninguna trampilla, solo una alfombra húmeda.", False),
    (PLACE, "es", NOTHING, "Hilda mira hacia la escalera del sótano.", False),
    (PLACE, "zh", NOTHING, "你掀开地毯，发现一扇活板门。", True),
    (PLACE, "zh", NOTHING, "吧台后面有一条密道。", True),
    (PLACE, "zh", NOTHING, "希尔达指了指教堂下面的墓穴。", True),
    (PLACE, "zh", NOTHING, "你靠在吧台上，看着壁炉。", False),
    (PLACE, "zh", NOTHING, "这里没有活板门，只有一块潮湿的地毯。", False),
    (PLACE, "zh", NOTHING, "希尔达朝地窖的楼梯看了一眼。", False),
    # unregistered-deal
    (DEAL, "en", NOTHING, "'It's a deal,' Greta says, and you shake hands.", True),
    (DEAL, "en", NOTHING, "You now owe Greta five silver.", True),
    (DEAL, "en", NOTHING, "Osric sells you the lantern for five coins.", True),
    (DEAL, "en", NOTHING, "Greta offers you a loan, at her usual rate.", False),
    (DEAL, "en", NOTHING, "'Do we have a deal?' Greta asks.", False),
    (DEAL, "en", A_DEBT, "You now owe Greta five silver.", False),
    (DEAL, "en", NOTHING, "Greta pays you five silver for the fish.", True),
    (DEAL, "en", NOTHING, "In the square nobody pays you much mind.", False),
    (DEAL, "en", NOTHING, "Later that day Greta pays you a visit.", False),
    (DEAL, "es", NOTHING, "«Trato hecho», dice Greta, y os estrecháis la mano.", True),
    (DEAL, "es", NOTHING, "Ahora le debes cinco monedas a Greta.", True),
    (DEAL, "es", NOTHING, "Osric te vende el farol por cinco monedas.", True),
    (DEAL, "es", NOTHING, "Greta te ofrece un préstamo a su interés de siempre.", False),
    (DEAL, "es", NOTHING, "—¿Trato hecho? —pregunta Greta.", False),
    (DEAL, "es", A_DEBT, "Ahora le debes cinco monedas a Greta.", False),
    (DEAL, "zh", NOTHING, "“成交。”格蕾塔说着和你握了握手。", True),
    (DEAL, "zh", NOTHING, "你现在欠她五枚银币。", True),
    (DEAL, "zh", NOTHING, "奥斯里克把提灯卖给你，收了五枚铜币。", True),
    (DEAL, "zh", NOTHING, "格蕾塔提出可以借钱给你，利息照旧。", False),
    (DEAL, "zh", NOTHING, "“成交吗？”格蕾塔问。", False),
    (DEAL, "zh", A_DEBT, "你现在欠她五枚银币。", False),
    # contradicts-roll
    (ROLL, "en", FAILED_ROLL, "You haul yourself up the wall with ease.", True),
    (ROLL, "en", FAILED_ROLL, "The lock clicks open under your picks.", True),
    (ROLL, "en", GOOD_ROLL, "You slip and fall back into the mud.", True),
    (ROLL, "en", MISSED, "Your blade finds Hilda's arm.", True),
    (ROLL, "en", FAILED_ROLL, "You slip, and the wall wins this time.", False),
    (ROLL, "en", GOOD_ROLL, "You slip past Hilda without a sound.", False),
    (ROLL, "en", FAILED_ROLL, "You don't manage to climb it.", False),
    (ROLL, "es", FAILED_ROLL, "Trepas el muro con facilidad.", True),
    (ROLL, "es", FAILED_ROLL, "La cerradura cede con un clic.", True),
    (ROLL, "es", GOOD_ROLL, "Resbalas y caes al barro.", True),
    (ROLL, "es", FAILED_ROLL, "No lo consigues: el muro te gana.", False),
    (ROLL, "es", GOOD_ROLL, "Llegas arriba sin aliento.", False),
    (ROLL, "es", FAILED_ROLL, "La cerradura no cede.", False),
    (ROLL, "zh", FAILED_ROLL, "你轻而易举地爬上了墙。", True),
    (ROLL, "zh", FAILED_ROLL, "锁咔哒一声打开了。", True),
    (ROLL, "zh", GOOD_ROLL, "你脚下一滑，摔了下来。", True),
    (ROLL, "zh", FAILED_ROLL, "你没能爬上去。", False),
    (ROLL, "zh", GOOD_ROLL, "你爬上了墙头。", False),
    (ROLL, "zh", FAILED_ROLL, "锁纹丝不动。", False),
    # acts-for-player: Ada is another player's character
    (ACTS, "en", NOTHING, "Ada draws her mace and steps in front of you.", True),
    (ACTS, "en", NOTHING, "'We should go,' says Ada.", True),
    (ACTS, "en", NOTHING, "Ada decides to follow you down.", True),
    (ACTS, "en", NOTHING, "Ada stands by the well, watching.", False),
    (ACTS, "en", NOTHING, "Hilda asks Ada about the chalice.", False),
    (ACTS, "en", NOTHING, "You glance at Ada; her face gives nothing away.", False),
    (ACTS, "es", NOTHING, "Ada desenvaina la maza y se pone delante de ti.", True),
    (ACTS, "es", NOTHING, "—Deberíamos irnos —dice Ada.", True),
    (ACTS, "es", NOTHING, "Ada decide seguirte al sótano.", True),
    (ACTS, "es", NOTHING, "Ada está junto al pozo, mirando.", False),
    (ACTS, "es", NOTHING, "Hilda le pregunta a Ada por el cáliz.", False),
    (ACTS, "es", NOTHING, "Miras a Ada; su rostro no dice nada.", False),
    (ACTS, "zh", NOTHING, "Ada拔出锤子，挡在你身前。", True),
    (ACTS, "zh", NOTHING, "“我们该走了。”Ada说。", True),
    (ACTS, "zh", NOTHING, "Ada决定跟你下去。", True),
    (ACTS, "zh", NOTHING, "Ada站在井边看着。", False),
    (ACTS, "zh", NOTHING, "希尔达向Ada打听圣杯的事。", False),
    (ACTS, "zh", NOTHING, "你看了Ada一眼。", False),
    # death-or-return
    (DEATH, "en", NOTHING, "Hilda falls dead at your feet.", True),
    (DEATH, "en", NOTHING, "The dog breathes his last in the straw.", True),
    (DEATH, "en", NOTHING, "Father Aldric rises from the dead, eyes burning.", True),
    (DEATH, "en", NOTHING, "In the dead of night, the inn falls silent.", False),
    (DEATH, "en", NOTHING, "Hilda collapses, unconscious but breathing.", False),
    (DEATH, "en", NOTHING, "'My husband died last winter,' Greta says.", False),
    (DEATH, "es", NOTHING, "Hilda cae muerta a tus pies.", True),
    (DEATH, "es", NOTHING, "El perro da su último aliento sobre la paja.", True),
    (DEATH, "es", NOTHING, "El padre Aldric vuelve a la vida.", True),
    (DEATH, "es", NOTHING, "Estás muerto de cansancio tras el camino.", False),
    (DEATH, "es", NOTHING, "Hilda se desploma, inconsciente pero respira.", False),
    (DEATH, "es", NOTHING, "«Mi marido murió el invierno pasado», dice Greta.", False),
    (DEATH, "zh", NOTHING, "希尔达倒在你脚下，死了。", True),
    (DEATH, "zh", NOTHING, "那条狗断气了。", True),
    (DEATH, "zh", NOTHING, "奥尔德里克神父死而复生。", True),
    (DEATH, "zh", NOTHING, "夜里一片死寂。", False),
    (DEATH, "zh", NOTHING, "希尔达倒下了，昏迷不醒但还有呼吸。", False),
    (DEATH, "zh", NOTHING, "“我丈夫去年冬天死了。”格蕾塔说。", False),
    # time-advanced
    (TIME, "en", NOTHING, "Hours pass as you wait by the fire.", True),
    (TIME, "en", NOTHING, "The next morning, Hilda has the bread ready.", True),
    (TIME, "en", NOTHING, "Night falls over Brackenford.", True),
    (TIME, "en", NOTHING, "'Come back tomorrow,' Hilda says.", False),
    (TIME, "en", NOTHING, "The morning light slants across the bar.", False),
    (TIME, "en", RESTED, "Hours pass as you sleep.", False),
    (TIME, "es", NOTHING, "Pasan las horas junto al fuego.", True),
    (TIME, "es", NOTHING, "A la mañana siguiente, Hilda ya tiene el pan listo.", True),
    (TIME, "es", NOTHING, "Cae la noche sobre Brackenford.", True),
    (TIME, "es", NOTHING, "«Vuelve mañana», dice Hilda.", False),
    (TIME, "es", NOTHING, "La luz de la mañana entra por la ventana.", False),
    (TIME, "es", RESTED, "Pasan las horas mientras duermes.", False),
    (TIME, "zh", NOTHING, "几个小时后，你还在火边等着。", True),
    (TIME, "zh", NOTHING, "第二天早上，希尔达已经备好了面包。", True),
    (TIME, "zh", NOTHING, "夜幕降临，笼罩了布拉肯福德。", True),
    (TIME, "zh", NOTHING, "“明天再来吧。”希尔达说。", False),
    (TIME, "zh", NOTHING, "晨光从窗口照进来。", False),
    (TIME, "zh", RESTED, "几个小时后你醒了过来。", False),
    # several-actions
    (SEVERAL, "en", NOTHING, "You drink your ale, then you head down to the cellar.", True),
    (SEVERAL, "en", NOTHING, "You pay Hilda and finally you climb the stairs to bed.", True),
    (SEVERAL, "en", TWO_ACTIONS, "You buy the bread.", True),
    (SEVERAL, "en", NOTHING, "You drink your ale. Then Hilda turns to the fire.", False),
    (SEVERAL, "en", NOTHING, "You wait. Nothing else happens.", False),
    (SEVERAL, "en", NPC_AND_CHECK, "Hilda moves to the hearth as you creep on.", False),
    (SEVERAL, "es", NOTHING, "Bebes la cerveza y luego bajas al sótano.", True),
    (SEVERAL, "es", NOTHING, "Pagas a Hilda y, a continuación, subes a dormir.", True),
    (SEVERAL, "es", TWO_ACTIONS, "Compras el pan.", True),
    (SEVERAL, "es", NOTHING, "Hilda recoge la jarra y luego vuelve al fuego.", False),
    (SEVERAL, "es", NOTHING, "Esperas. No pasa nada más.", False),
    (SEVERAL, "es", NPC_AND_CHECK, "Hilda va a la chimenea mientras avanzas.", False),
    (SEVERAL, "zh", NOTHING, "你喝完酒，然后你下到地窖。", True),
    (SEVERAL, "zh", NOTHING, "你付了钱，接着你上楼睡觉。", True),
    (SEVERAL, "zh", TWO_ACTIONS, "你买下了面包。", True),
    (SEVERAL, "zh", NOTHING, "你喝着酒。然后希尔达转身去看火。", False),
    (SEVERAL, "zh", NOTHING, "你等待着，什么也没发生。", False),
    (SEVERAL, "zh", NPC_AND_CHECK, "希尔达走到壁炉边，你悄悄前行。", False),
]  # fmt: skip


def facts(language: str, turn: dict[str, Any]) -> TurnFacts:
    return TurnFacts(
        tool_calls=list(turn.get("tool_calls", [])),
        rolls=list(turn.get("rolls", [])),
        character_id="ren",
        player_character_ids=["ada"],
        language=language,
    )


@pytest.mark.parametrize(("rule", "language", "turn", "narration", "fires"), ROWS)
def test_each_rule_on_real_looking_narrations(rule, language, turn, narration, fires):
    scene = demo_scene(language=language)
    turn_facts = facts(language, turn)
    assert RULES[rule](read(narration, turn_facts, scene)) is fires


def test_the_table_has_three_hits_and_three_near_misses_per_rule_and_language():
    for rule in VIOLATIONS:
        for language in ("en", "es", "zh"):
            rows = [r for r in ROWS if r[0] == rule and r[1] == language]
            assert sum(r[4] for r in rows) >= 3 and sum(not r[4] for r in rows) >= 3, (
                rule,
                language,
            )


# --- the report and the fallback ----------------------------------------------------------------


def test_the_report_names_every_rule_that_fired_in_order():
    scene = demo_scene()
    narration = "Ada draws her mace. Hours pass, then you find a trapdoor and Hilda dies."
    report = check_closure(narration, facts("en", NOTHING), scene)
    assert not report.ok
    assert report.violations == [
        "unknown-place",
        "acts-for-player",
        "death-or-return",
        "time-advanced",
    ]  # finding the trapdoor is the one deed of the character: not several actions


def test_a_clean_narration_passes():
    scene = demo_scene()
    report = check_closure("Hilda wipes a mug and waits.", facts("en", NOTHING), scene)
    assert report.ok and report.violations == []


def test_a_sale_refused_with_a_negative_determiner_is_no_deal():
    scene = demo_scene()
    turn = {"tool_calls": [failed("buy_item", item="chalice")]}
    for narration in ("Osric shakes his head: he sells no chalice.", "He gives you nothing."):
        assert check_closure(narration, facts("en", turn), scene).ok, narration


def test_a_point_found_this_turn_is_no_longer_unknown():
    scene = demo_scene()
    scene.me.discovered.append("the-wayfarer:trapdoor")
    report = check_closure("Under the rug, the trapdoor.", facts("en", NOTHING), scene)
    assert report.ok


def test_a_failed_tool_redone_successfully_may_be_told():
    scene = demo_scene()
    turn = {"tool_calls": [failed("transfer_item", item="lanter"), applied("transfer_item")]}
    report = check_closure("Osric hands you the lantern.", facts("en", turn), scene)
    assert "failed-tool-narrated" not in report.violations


def test_the_fallback_tells_what_the_tools_applied_and_what_did_not_happen():
    scene = demo_scene()
    took = call(scene, "transfer_item", item="rope", to="me")
    refused = call(scene, "reveal_secret", npc="hilda")
    invalid = call(scene, "lookup_rule")
    turn = {
        "tool_calls": [
            (ToolCall("a", "transfer_item", {}), took),
            (ToolCall("b", "reveal_secret", {}), refused),
            (ToolCall("c", "lookup_rule", {}), invalid),
        ]
    }
    text = fallback_closure(facts("en", turn), scene)
    assert (
        text
        == "Ren Ashby picks up coil of rope. It does not happen: Hilda Brant will not tell it yet."
    )


def test_the_fallback_with_nothing_applied_says_nothing_changes_in_the_turns_language():
    scene = demo_scene()
    assert fallback_closure(facts("en", NOTHING), scene) == "Nothing changes."
    assert fallback_closure(facts("es", NOTHING), scene) == "Nada cambia."
    assert fallback_closure(facts("zh", NOTHING), scene) == "什么也没有改变。"


def test_the_narrator_never_names_a_place_he_has_not_discovered():
    """Issue 32 (finding 7): Ren knows the inn and the square; the mill and the store are
    elsewhere, undiscovered. People may speak of their world; the narrator only of his."""
    scene = demo_scene()
    for narration in (
        "The Old Mill is not reachable directly from here.",
        "Pell's General Store lies beyond the square.",
        "The wheel of the mill groans in the distance.",
        "Is it the Old Mill you mean?",
    ):
        assert check_closure(narration, facts("en", NOTHING), scene).violations == [PLACE]
    for narration in (
        "Market Square lies to the south.",
        "“Greta bought the mill cheap,” Hilda mutters.",
        "You settle by the hearth.",
    ):
        assert check_closure(narration, facts("en", NOTHING), scene).ok, narration
