"""One seat's master never changes another seat's character on its word (issue 32 finding 5):
every tool that would is refused, with a narratable reason, unless this turn a roll against that
character went the actor's way (``engine.gm.tools.seats``)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.gm.outcomes import resolve_pending
from engine.gm.scene import Scene
from engine.gm.state import PendingCheck
from engine.gm.world import Debt, Holder
from tests.engine.gm.party_worlds import party_world
from tests.engine.gm.toolkit import call, say, snapshot
from tests.engine.gm.worlds import new_state, scene_for


def at_the_inn(language: str = "en") -> Scene:
    """Ada's turn at the inn, with Ren (another seat's character) and Hilda there."""
    world = party_world(language)
    scene = scene_for(world, new_state(world), "ada", language)
    say(scene, "I turn to Ren")
    return scene


def rolled(scene: Scene, dc: int, target: str = "ren", **more: Any) -> bool:
    """A roll of Ada's against ``target`` this turn, as the Roll button resolves it."""
    pending = PendingCheck(verb="check", check="athletics", dc=dc, target=target, **more)
    return resolve_pending(scene, pending).success


def hurt(scene: Scene) -> None:
    scene.state.characters["ren"].hp = 4


def owes_ada(scene: Scene) -> None:
    scene.state.debts.append(Debt(id="debt-1", debtor="ren", creditor="ada", amount=3))


def prepared(scene: Scene) -> None:
    return None


CHANGES_REN = [
    ("damage", {"target": "Ren Ashby", "dice": "1d4"}, prepared),
    ("heal", {"target": "Ren", "dice": "1d4"}, hurt),
    ("transfer_item", {"item": "mace", "to": "Ren Ashby"}, prepared),
    ("set_debt", {"debtor": "Ren Ashby", "creditor": "me", "amount": 1000}, prepared),
    ("set_debt", {"debtor": "me", "creditor": "Ren", "amount": 2, "cash": True}, prepared),
    ("settle_debt", {"with": "Ren"}, owes_ada),
    ("note_character_fact", {"character": "Ren", "fact": "He owes Ada a fortune."}, prepared),
]


@pytest.mark.parametrize(("tool", "arguments", "prepare"), CHANGES_REN)
def test_a_tool_that_changes_another_seats_character_without_a_roll_is_refused(
    tool, arguments, prepare
):
    scene = at_the_inn()
    prepare(scene)
    before = snapshot(scene)
    outcome = call(scene, tool, **arguments)
    assert not outcome.ok and outcome.result == {"code": "other-seat"}
    assert outcome.error.startswith("Ren Ashby belongs to another player")
    assert snapshot(scene) == before


@pytest.mark.parametrize(("tool", "arguments", "prepare"), CHANGES_REN)
def test_a_successful_roll_against_him_this_turn_lets_the_tool_change_him(tool, arguments, prepare):
    scene = at_the_inn()
    prepare(scene)
    assert rolled(scene, dc=1)
    assert call(scene, tool, **arguments).ok


def test_one_roll_clears_one_call_only():
    scene = at_the_inn()
    assert rolled(scene, dc=1)
    assert call(scene, "damage", target="ren", dice="1d2").ok
    again = call(scene, "damage", target="ren", dice="1d2")
    assert not again.ok and again.result["code"] == "other-seat"


def test_a_failed_roll_or_one_against_someone_else_clears_nothing():
    scene = at_the_inn()
    assert not rolled(scene, dc=30)
    assert rolled(scene, dc=1, target="hilda")
    assert not call(scene, "damage", target="ren", dice="1d4").ok


def test_a_roll_of_an_earlier_turn_does_not_count():
    scene = at_the_inn()
    assert rolled(scene, dc=1)
    say(scene, "I sit down")
    assert not call(scene, "note_character_fact", character="Ren", fact="A liar.").ok


def test_npcs_and_the_acting_character_are_not_protected():
    scene = at_the_inn()
    assert call(scene, "damage", target="Hilda", dice="1d4").ok
    assert call(scene, "note_character_fact", fact="She hit the innkeeper.").ok
    assert call(scene, "damage", target="me", dice="1d2").ok


def test_learning_names_from_the_narration_is_not_a_change_to_him():
    scene = at_the_inn()
    scene.state.characters["ren"].known_names = []
    closed = call(scene, "log_event", narration="Hilda, the innkeeper, wipes the bar.")
    assert closed.ok and "hilda" in scene.state.characters["ren"].known_names


def test_stabilising_him_rides_on_its_own_medicine_roll():
    scene = at_the_inn()
    ren = scene.state.characters["ren"]
    ren.hp, ren.conditions = 0, ["unconscious", "dying"]
    outcome = call(scene, "stabilise", target="Ren")
    assert outcome.ok
    now = scene.state.characters["ren"].conditions
    assert ("stable" in now) == outcome.result["stabilised"]


def test_a_check_against_him_takes_the_engines_dc_and_is_never_hidden():
    scene = at_the_inn()
    asked = call(scene, "request_skill_check", check="athletics", dc=30, target="Ren Ashby")
    pending = scene.state.pending["ada"]
    assert asked.ok and (pending.target, pending.dc, pending.hidden) == ("ren", 10, False)
    scene.state.pending.clear()
    hidden = call(scene, "request_skill_check", check="stealth", target="Ren", hidden=True)
    assert not hidden.ok and hidden.result == {"code": "contest-hidden"}


def test_a_theft_from_him_takes_the_item_only_on_a_successful_roll():
    scene = at_the_inn()
    scene.state.items["tankard"] = Holder(character="ren")
    asked = call(
        scene, "request_skill_check", check="sleight-of-hand", target="Ren",
        purpose="steal", item="tankard",
    )  # fmt: skip
    assert asked.ok
    pending = scene.state.pending.pop("ada").model_copy(update={"dc": 1})
    assert resolve_pending(scene, pending).success
    assert scene.state.items["tankard"] == Holder(character="ada")


def test_the_dagger_in_his_hand_cannot_be_the_loot():
    scene = at_the_inn()
    asked = call(
        scene, "request_skill_check", check="sleight-of-hand", target="Ren",
        purpose="steal", item="dagger",
    )  # fmt: skip
    assert not asked.ok and "ada" not in scene.state.pending


@pytest.mark.parametrize(
    ("language", "said"),
    [("es", "Ren Ashby es de otro jugador"), ("zh", "Ren Ashby属于另一位玩家")],
)
def test_the_refusal_is_narratable_in_the_worlds_languages(language, said):
    scene = at_the_inn(language)
    outcome = call(scene, "damage", target="Ren Ashby", dice="1d4")
    assert not outcome.ok and outcome.error.startswith(said)
