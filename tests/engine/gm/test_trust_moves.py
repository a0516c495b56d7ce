"""Trust (seed 001 "Trato", "Qué mueve el trato"; decision 19): six levels, each with how the NPC
talks in en/es/zh, and every move as an engine rule, each in its own test: raised by errands
done, gifts it needs, helping its people, flattery that suits it, persuasion and talking again;
lowered by intimidation, attacks on it or its people, insults, harassment, a lie found out and a
crime it sees (engine.gm.trust_rules, engine.gm.outcomes, engine.gm.tools.progress)."""

from __future__ import annotations

import copy

import pytest

from engine.gm.outcomes import resolve_pending
from engine.gm.scene import Scene
from engine.gm.state import GMState, PendingCheck
from engine.gm.talkbook import talkbook, tone, tones
from engine.gm.trust import THRESHOLDS, level_of, trust_level, trust_score
from engine.gm.trust_rules import LOWERS, RAISES, apply_moves, apply_turn_rules
from engine.gm.world import TRUST_LEVELS, GameClock, JournalEntry, TrustMoves
from engine.world import load_world
from tests.engine.gm.toolkit import call, demo_scene, say
from tests.engine.gm.worlds import demo_data, demo_world, new_state, play, scene_for


def score(state: GMState | Scene, npc: str, who: str = "ren") -> int:
    gm_state = state.state if isinstance(state, Scene) else state
    gm = demo_world().game_master
    assert gm is not None
    return trust_score(gm_state, gm.npcs_by_id[npc], who)


def evening(scene: Scene) -> Scene:
    """The Wayfarer in the evening: Hilda at the bar, Greta and Jory by the hearth."""
    scene.state.clock = GameClock(day=1, time_of_day="evening")
    scene._npcs.clear()
    return scene


def talk(texts: list[str], world=None, who: str = "ren"):
    world = world or demo_world()
    state = new_state(world)
    results = []
    for text in texts:
        result = play(world, state, text, who)
        state = result.state
        results.append(result)
    return results, state.gm


def npcs_with(**fields):
    data = copy.deepcopy(demo_data())
    for npc in data["gameMaster"]["npcs"]:
        if npc["id"] == "hilda":
            npc.update(fields)
    return load_world(data)


# --- levels and how each talks ------------------------------------------------------------------


def test_six_levels_in_order_with_their_thresholds():
    assert TRUST_LEVELS == ("hostile", "wary", "stranger", "acquaintance", "friend", "ally")
    for level, low in THRESHOLDS.items():
        if level != "hostile":
            assert level_of(low) == level and level_of(low - 1) != level
    assert level_of(-100) == "hostile" and level_of(100) == "ally"


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_each_level_has_its_manner_of_talking_in_every_language(language):
    rows = tones(language)
    assert [row[0] for row in rows] == list(TRUST_LEVELS)
    assert len({row[1] for row in rows}) == 6 and len({row[2] for row in rows}) == 6
    book = talkbook(language)
    greetings = {
        book.t(f"c_greeting_{lv}") if book.has(f"c_greeting_{lv}") else "" for lv in TRUST_LEVELS
    }
    assert len(greetings) >= 5  # a greeting of its own for nearly every level


def test_the_seeds_table_of_manners():
    assert tone("hostile", "es") == "Corto, frío o amenazante. No da nada gratis."
    assert tone("wary", "en").startswith("The minimum; asks what he wants and why")
    assert "contesta igual" in tone("wary", "es")  # a tone, not a refusal


def test_every_move_of_the_seed_has_an_amount_and_a_direction():
    amounts = TrustMoves()
    assert set(RAISES) | set(LOWERS) == set(TrustMoves.model_fields)
    assert all(getattr(amounts, m) > 0 for m in RAISES)
    assert all(getattr(amounts, m) < 0 for m in LOWERS)


# --- raises -------------------------------------------------------------------------------------


def test_fulfil_quest_an_errand_done_raises_its_owners_trust():
    scene = demo_scene()
    scene.me.journal.append(JournalEntry(kind="quest", ref="clear-road", title="clear-road"))
    say(scene, "The road is clear now, Hilda.")
    before = score(scene, "hilda")
    assert call(scene, "complete_errand", quest="clear-road").ok
    assert score(scene, "hilda") == before + 20


def test_give_needed_a_gift_it_needs_raises_trust():
    data = copy.deepcopy(demo_data())
    gm = data["gameMaster"]
    gm["items"].append({"id": "salve", "name": "jar of salve", "at": {"character": "ren"}})
    gm["items"].append({"id": "pebble", "name": "pebble", "at": {"character": "ren"}})
    next(n for n in gm["npcs"] if n["id"] == "hilda")["needs"] = ["salve"]
    world = load_world(data)
    scene = scene_for(world, new_state(world), "ren")
    say(scene, "Here, Hilda, for your burns.")
    before = score(scene, "hilda")
    assert call(scene, "transfer_item", item="pebble", to="hilda").ok
    assert apply_turn_rules(scene) == {}  # a gift it does not need moves nothing
    say(scene, "And this too.")
    assert call(scene, "transfer_item", item="salve", to="hilda").ok
    assert apply_turn_rules(scene) == {"hilda": 10}
    assert score(scene, "hilda") == before + 10


def test_help_people_an_errand_for_one_of_its_people_raises_trust():
    scene = evening(demo_scene())
    scene.me.journal.append(JournalEntry(kind="quest", ref="stray-dog", title="stray-dog"))
    say(scene, "I found the dog's owner, Jory.")
    before = score(scene, "hilda")
    assert call(scene, "complete_errand", quest="stray-dog").ok  # Jory's errand
    assert apply_turn_rules(scene) == {"hilda": 15}  # Jory is Hilda's brother
    assert score(scene, "hilda") == before + 15


def test_flatter_flattery_that_suits_it_raises_trust():
    [result], gm_state = talk(["Hilda, you look lovely today."])
    assert result.changes["trust"] == {"hilda": 5}
    assert score(gm_state, "hilda") == 35


def test_flatter_sours_an_npc_that_dislikes_flattery():
    [result], _ = talk(["Hilda, you look lovely today."], npcs_with(dislikesFlattery=True))
    assert result.changes["trust"] == {"hilda": -5}
    assert "Save the sweet talk." in result.narration


def test_persuade_a_passed_persuasion_check_raises_trust():
    scene = demo_scene()
    say(scene, "persuade Hilda")
    pending = PendingCheck(verb="persuade", check="persuasion", dc=1, target="hilda")
    outcome = resolve_pending(scene, pending)
    assert outcome.success and outcome.changes["trust"] == {"hilda": 10}
    failed = resolve_pending(scene, pending.model_copy(update={"dc": 40}))
    assert "trust" not in failed.changes  # a failed persuasion moves nothing


def test_chat_again_coming_back_to_talk_raises_trust_once_a_game_day():
    results, gm_state = talk(
        ["Hello, Hilda.", "Goodbye, Hilda.", "Hello again, Hilda.", "Bye.", "Hi, Hilda."]
    )
    assert "trust" not in results[0].changes  # the first talk: no reunion yet
    assert results[2].changes["trust"] == {"hilda": 3}
    assert "trust" not in results[4].changes  # once a game day
    assert score(gm_state, "hilda") == 33


def test_chat_again_counts_again_the_next_day():
    results, gm_state = talk(
        ["Hello, Hilda.", "Bye, Hilda.", "Hi, Hilda.", "Bye.", "wait until morning", "Hi, Hilda."]
    )
    assert results[2].changes["trust"] == {"hilda": 3}
    assert results[4].kind == "engine" and gm_state is not None and gm_state.clock.day == 2
    assert results[5].changes["trust"] == {"hilda": 3}
    assert score(gm_state, "hilda") == 36


# --- lowers -------------------------------------------------------------------------------------


def test_intimidate_an_intimidation_check_lowers_trust_either_way():
    scene = demo_scene()
    say(scene, "intimidate Hilda")
    pending = PendingCheck(verb="intimidate", check="intimidation", dc=1, target="hilda")
    assert resolve_pending(scene, pending).changes["trust"] == {"hilda": -15}


def test_intimidate_threatening_words_lower_trust():
    [result], _ = talk(["Hilda, give me the key or else."])
    assert result.changes["trust"] == {"hilda": -15}
    assert "threatening me" in result.narration


def test_attack_attacking_it_lowers_trust():
    scene = demo_scene()
    say(scene, "attack Hilda")
    outcome = resolve_pending(scene, PendingCheck(verb="attack", kind="attack", target="hilda"))
    assert outcome.changes["trust"]["hilda"] == -40


def test_attack_people_attacking_one_of_its_people_lowers_trust():
    scene = evening(demo_scene())
    say(scene, "attack Jory")
    outcome = resolve_pending(scene, PendingCheck(verb="attack", kind="attack", target="jory"))
    assert outcome.changes["trust"]["hilda"] == -30  # her brother
    assert outcome.changes["trust"]["jory"] == -40


def test_insult_an_insult_lowers_trust():
    [result], gm_state = talk(["Hilda, you stupid old hag."])
    assert result.changes["trust"] == {"hilda": -15}
    assert score(gm_state, "hilda") == 15


def test_harass_a_second_insult_in_one_talk_is_harassment():
    results, gm_state = talk(["Hilda, you fool.", "You idiot!"])
    assert results[0].changes["trust"] == {"hilda": -15}
    assert results[1].changes["trust"] == {"hilda": -25}  # insult and harass
    assert score(gm_state, "hilda") == -10


def test_caught_lying_a_failed_deception_lowers_trust():
    scene = demo_scene()
    say(scene, "lie to Hilda")
    pending = PendingCheck(verb="deceive", check="deception", dc=40, target="hilda")
    assert resolve_pending(scene, pending).changes["trust"] == {"hilda": -25}
    believed = resolve_pending(scene, pending.model_copy(update={"dc": 1}))
    assert "trust" not in believed.changes


def test_crime_seen_its_own_robbery_and_a_robbery_it_witnesses_lower_trust():
    scene = evening(demo_scene())
    say(scene, "steal from Hilda")
    pending = PendingCheck(verb="steal", check="sleight-of-hand", dc=40, target="hilda")
    outcome = resolve_pending(scene, pending)
    assert outcome.changes["trust"] == {"hilda": -30}  # the victim saw it
    assert apply_turn_rules(scene) == {"greta": -30, "jory": -30}  # so did the others
    assert score(scene, "hilda") == 0


def test_crime_seen_an_attack_on_someone_else_lowers_a_witness_trust():
    scene = evening(demo_scene())
    say(scene, "attack Greta")
    resolve_pending(scene, PendingCheck(verb="attack", kind="attack", target="greta"))
    shifts = apply_turn_rules(scene)
    assert shifts == {"hilda": -30, "jory": -30}


def test_a_quiet_theft_is_seen_by_nobody():
    scene = evening(demo_scene())
    say(scene, "steal from Hilda")
    pending = PendingCheck(verb="steal", check="sleight-of-hand", dc=1, target="hilda")
    assert "trust" not in resolve_pending(scene, pending).changes
    assert apply_turn_rules(scene) == {}


# --- once per turn ------------------------------------------------------------------------------


def test_a_move_shifts_an_npc_once_a_turn_whoever_notices_it():
    scene = demo_scene()
    say(scene, "Hilda, you look lovely.")
    hilda = scene.gm.npcs_by_id["hilda"]
    assert call(scene, "adjust_trust", npc="hilda", move="flatter").ok
    assert apply_moves(scene, [(hilda, "flatter")]) == {}
    assert trust_level(scene.state, hilda, "ren") == "acquaintance"
    assert score(scene, "hilda") == 35
