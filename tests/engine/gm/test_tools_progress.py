"""engine.gm.tools progress group: clues refused with the reason, errands done, errands offered
only when the talk has come to it (too_soon), and secrets behind the engine's gate."""

from __future__ import annotations

from engine.gm.outcomes import resolve_pending
from engine.gm.state import PassedCheck, PendingCheck, log_event
from engine.gm.trust import START_SCORES
from engine.gm.world import JournalEntry
from tests.engine.gm.toolkit import call, demo_scene, say, world_with
from tests.engine.gm.worlds import demo_data, new_state, scene_for

# --- clues --------------------------------------------------------------------------------------


def test_a_clue_he_can_get_is_granted_into_his_journal():
    scene = demo_scene()
    scene.me.passed.append(PassedCheck(check="investigation", total=15, location="the-wayfarer"))
    outcome = call(scene, "grant_clue", clue="Wet footprints")
    assert outcome.ok and outcome.result["text"].startswith("Damp footprints lead")
    assert scene.me.clues == ["wet-footprints"]
    assert scene.me.journal[-1].kind == "clue"
    assert [e.seen_by for e in outcome.events] == [["ren"]]
    assert call(scene, "grant_clue", clue="wet-footprints").error == (
        "Ren Ashby already has that clue."
    )


def test_a_clue_waiting_for_a_check_is_refused_without_its_text():
    outcome = call(demo_scene(), "grant_clue", clue="Wet footprints")
    assert outcome.error == "Not yet: it takes a check first (Investigation, DC 13)."
    assert "Damp" not in str(outcome.to_dict())


def test_a_clue_locked_by_trust_says_who_does_not_trust_him_yet():
    scene = demo_scene()
    scene.me.location = "chapel"
    outcome = call(scene, "grant_clue", clue="A lantern by the inn")
    assert outcome.error == "Not yet: the priest does not trust Ren Ashby enough for that."
    scene.state.trust["father-aldric"] = {"ren": START_SCORES["acquaintance"]}
    assert call(scene, "grant_clue", clue="A lantern by the inn").ok


def test_a_clue_locked_by_an_item_does_not_name_the_item():
    scene = demo_scene()
    scene.me.location = "east-road"
    outcome = call(scene, "grant_clue", clue="The dog's collar")
    assert outcome.error == "Not yet: Ren Ashby lacks what it takes."


def test_a_clue_anchored_elsewhere_is_not_here():
    outcome = call(demo_scene(), "grant_clue", clue="The mill's deed")
    assert outcome.error == "That clue is not to be found here."


def test_the_refusal_speaks_the_turns_language():
    outcome = call(demo_scene(language="es"), "grant_clue", clue="Wet footprints")
    assert outcome.error == "Todavía no: antes hace falta una prueba de Investigación (CD 13)."


# --- errands ------------------------------------------------------------------------------------


def with_errand(scene, quest: str = "clear-road"):
    scene.me.journal.append(JournalEntry(kind="quest", ref=quest, title=quest))
    return scene


def test_an_errand_is_completed_before_its_owner_who_trusts_him_more():
    scene = with_errand(demo_scene())
    outcome = call(scene, "complete_errand", quest="Trouble on the East Road")
    assert outcome.ok and scene.me.completed == ["clear-road"]
    assert outcome.changes["trust"] == {"hilda": 20}
    assert call(scene, "complete_errand", quest="clear-road").error == (
        "'Trouble on the East Road' is already done."
    )


def test_an_errand_read_on_the_board_counts_as_taken():
    scene = demo_scene()
    scene.me.journal.append(JournalEntry(kind="notice", ref="carters-wanted", title="Escort"))
    assert call(scene, "complete_errand", quest="clear-road").ok


def test_an_errand_not_taken_or_without_its_owner_is_refused():
    scene = demo_scene()
    assert call(scene, "complete_errand", quest="clear-road").error == (
        "Ren Ashby has not taken up an errand like 'clear-road'."
    )
    with_errand(scene, "find-chalice")
    assert call(scene, "complete_errand", quest="find-chalice").error == (
        "The priest is not here to receive it."
    )


# --- offers (too_soon) --------------------------------------------------------------------------


def test_no_errand_in_the_opening_scene():
    outcome = call(demo_scene(), "offer_quest", npc="hilda", quest="clear-road")
    assert not outcome.ok and outcome.result == {"code": "too_soon"}
    assert outcome.error == "Too soon: the talk with Hilda Brant has not come to that."


def test_an_errand_when_he_asks_for_work_and_only_one_a_turn():
    scene = demo_scene()
    say(scene, "Hilda, do you have any work for me?")
    outcome = call(scene, "offer_quest", npc="hilda", quest="Trouble on the East Road")
    assert outcome.ok and scene.me.journal[-1].ref == "clear-road"
    assert outcome.changes == {"journal": {"added": ["clear-road"]}}
    second = call(scene, "offer_quest", npc="hilda", quest="stray-dog")  # her brother's
    assert second.result == {"code": "too_soon"}
    say(scene, "What's wrong with the dog?")
    assert call(scene, "offer_quest", npc="hilda", quest="stray-dog").ok


def test_the_ask_can_come_in_spanish_or_chinese():
    for words in ("¿Tienes algún trabajo para mí?", "老板娘，有什么活儿吗？"):
        scene = demo_scene()
        say(scene, words)
        assert call(scene, "offer_quest", npc="hilda", quest="clear-road").ok, words


def test_being_near_is_not_enough():
    scene = demo_scene()
    say(scene, "I warm my hands at the fire.")
    assert call(scene, "offer_quest", npc="hilda", quest="clear-road").result == {
        "code": "too_soon"
    }


def test_after_talking_a_while_the_errand_may_come():
    scene = demo_scene()
    for words in ("Good morning.", "The fire is nice.", "Busy day?"):
        say(scene, words)
    assert call(scene, "offer_quest", npc="hilda", quest="clear-road").ok


def test_no_errand_in_a_turn_he_fights_or_moves_or_turns_to_someone_else():
    fight = demo_scene()
    say(fight, "Hilda, any work? Also I hit her.")
    assert call(fight, "request_attack", target="hilda").ok
    assert call(fight, "offer_quest", npc="hilda", quest="clear-road").result["code"] == "too_soon"
    evening = world_with(clock={"day": 1, "timeOfDay": "evening"})
    other = scene_for(evening, new_state(evening), "ren")
    say(other, "Greta, any work for me?")
    assert call(other, "offer_quest", npc="hilda", quest="clear-road").result["code"] == "too_soon"


def test_an_npc_offers_only_its_own_or_its_peoples_errands():
    scene = demo_scene()
    say(scene, "Hilda, any work?")
    outcome = call(scene, "offer_quest", npc="hilda", quest="find-chalice")
    assert outcome.error == "There is no errand like 'find-chalice' to be had from here."


# --- secrets ------------------------------------------------------------------------------------

SECRET = "Her brother Jory smuggles church silver"


def test_a_secret_stays_behind_the_gate_without_a_reason():
    outcome = call(demo_scene(), "reveal_secret", npc="hilda")
    assert not outcome.ok and outcome.result == {"code": "gated"}
    assert SECRET not in str(outcome.to_dict())


def test_enough_trust_opens_it_and_it_stays_told():
    scene = demo_scene()
    scene.state.trust["hilda"] = {"ren": START_SCORES["ally"]}
    outcome = call(scene, "reveal_secret", npc="the innkeeper")
    assert outcome.ok and outcome.result["gate"] == "trust"
    assert outcome.result["secret"].startswith(SECRET)
    assert scene.state.revealed == {"hilda": ["ren"]}
    assert outcome.events[0].seen_by == ["ren", "hilda"]
    assert SECRET not in outcome.events[0].text
    scene.state.trust["hilda"] = {"ren": START_SCORES["hostile"]}
    assert call(scene, "reveal_secret", npc="hilda").result["gate"] == "revealed"


def pressed(scene, *, dc: int, total: int, natural: int, target: str | None = "hilda") -> None:
    log_event(
        scene.state,
        "check",
        scene.character_id,
        scene.me.location,
        "Ren Ashby tries to intimidate: success.",
        seen_by=["ren", "hilda"],
        data={"verb": "intimidate", "check": "intimidation", "total": total, "dc": dc,
              "natural": natural, "target": target},
    )  # fmt: skip


def test_pressure_that_passes_dc_20_this_turn_opens_it():
    scene = demo_scene()
    say(scene, "Tell me what is in the cellar, or else.")
    pressed(scene, dc=20, total=22, natural=15)
    assert call(scene, "reveal_secret", npc="hilda").result["gate"] == "pressure"


def test_pressure_below_dc_20_or_from_an_earlier_turn_does_not():
    scene = demo_scene()
    say(scene, "Tell me.")
    pressed(scene, dc=15, total=19, natural=15)
    assert not call(scene, "reveal_secret", npc="hilda").ok
    pressed(scene, dc=20, total=24, natural=18)
    say(scene, "Now tell me again.")
    assert not call(scene, "reveal_secret", npc="hilda").ok


def test_a_natural_20_against_it_opens_it():
    scene = demo_scene()
    say(scene, "Please, Hilda.")
    pressed(scene, dc=15, total=24, natural=20)
    assert call(scene, "reveal_secret", npc="hilda").result["gate"] == "natural-20"
    other = demo_scene()
    say(other, "Please.")
    pressed(other, dc=15, total=24, natural=20, target="greta")
    assert not call(other, "reveal_secret", npc="hilda").ok


def test_the_servers_roll_records_what_the_gate_reads():
    scene = demo_scene()
    pending = PendingCheck(verb="intimidate", check="intimidation", dc=20, target="hilda")
    outcome = resolve_pending(scene, pending)
    data = outcome.events[-1].data
    assert data["natural"] == outcome.rolls[0].natural and data["target"] == "hilda"


def test_an_npc_without_a_secret_keeps_nothing_back():
    data = demo_data()
    npcs = [dict(n) for n in data["gameMaster"]["npcs"]]
    npcs[0].pop("secret")
    scene = demo_scene(npcs=npcs)
    assert call(scene, "reveal_secret", npc="hilda").error == (
        "Hilda Brant keeps nothing back worth telling."
    )


def test_an_errand_asked_of_a_name_he_never_learnt_is_asked_of_nobody():
    """Issue 32 (finding 7): Ren never learnt the stable hand's name; "Jory, any work?" speaks
    to nobody, as "Zed, any work?" would, while the trade reaches him."""
    evening = world_with(clock={"day": 1, "timeOfDay": "evening"})
    for words, ok in (
        ("Jory, any work for me?", False),
        ("Zed, any work for me?", False),
        ("Stable hand, any work for me?", True),
    ):
        scene = scene_for(evening, new_state(evening), "ren")
        say(scene, words)
        assert call(scene, "offer_quest", npc="jory", quest="stray-dog").ok is ok, words
