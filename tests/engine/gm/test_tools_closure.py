"""engine.gm.tools log_event: the mandatory closure with its narration, witnesses computed by
the engine, leak-filtered suggestions, memories, trust moves, bubbles, a roll request and the
names it delivers."""

from __future__ import annotations

from engine.gm.memory import memories
from tests.engine.gm.toolkit import call, demo_scene, snapshot


def test_it_closes_the_turn_with_an_event_whose_witnesses_the_engine_computes():
    scene = demo_scene()
    outcome = call(scene, "log_event", narration="Hilda sets down a mug.", witnesses=["ada"])
    assert outcome.ok and outcome.closes_turn
    [event] = outcome.events
    assert (event.kind, event.actor, event.text) == ("master", "ren", "Hilda sets down a mug.")
    assert event.seen_by == ["ren", "hilda"]
    assert outcome.result == {"logged": event.id, "suggestions": []}


def test_an_npc_may_be_who_acts_but_never_another_players_character():
    scene = demo_scene()
    assert call(scene, "log_event", narration="She laughs.", actor="hilda").events[0].actor == (
        "hilda"
    )
    refused = call(scene, "log_event", narration="Ada nods.", actor="Ada Thorne")
    assert refused.error.startswith("Ada Thorne belongs to another player")


def test_its_suggestions_are_leak_filtered():
    scene = demo_scene()
    outcome = call(
        scene,
        "log_event",
        narration="The fire pops.",
        suggestions=["Ask Father Aldric about the lantern", "Follow Ash", "Warm your hands"],
    )
    assert outcome.result["suggestions"] == [
        "Ask the priest about the lantern",
        "Warm your hands",
    ]
    assert outcome.events[0].data["suggestions"] == outcome.result["suggestions"]


def test_a_name_the_narration_delivers_is_known_afterwards_to_those_who_perceived_it():
    scene = demo_scene()
    outcome = call(
        scene,
        "log_event",
        narration="A wiry lad pokes his head in: Jory Brant, Hilda's brother.",
        suggestions=["Ask Jory about the road", "Order a drink"],
    )
    assert outcome.result["suggestions"] == ["Ask Jory about the road", "Order a drink"]
    assert "jory" in scene.me.known_names
    assert "jory" not in scene.state.characters["ada"].known_names  # she is in the square
    assert outcome.changes["knownNames"] == {"ren": ["jory"]}


def test_a_name_in_a_bubble_is_delivered_too():
    scene = demo_scene("ada")
    call(
        scene,
        "log_event",
        narration="The moneylender looks up.",
        bubbles=[{"speaker": "greta", "gesture": "without blinking", "text": "I am Greta Vell."}],
    )
    assert "greta" in scene.me.known_names


def test_memories_are_written_about_the_acting_character():
    scene = demo_scene()
    outcome = call(
        scene,
        "log_event",
        narration="Hilda nods as you leave.",
        memories=[{"npc": "hilda", "text": "Ren paid for the broken mug.", "importance": 2}],
    )
    assert outcome.changes["memories"] == [{"npc": "hilda", "importance": 2}]
    [memory] = memories(scene.gm, scene.state, "hilda")
    assert (memory.about, memory.text, memory.importance, memory.day) == (
        "ren",
        "Ren paid for the broken mug.",
        2,
        1,
    )


def test_trust_moves_carry_their_reason_and_count_once():
    scene = demo_scene()
    outcome = call(
        scene,
        "log_event",
        narration="She warms to you.",
        trust=[{"npc": "hilda", "move": "chat_again", "reason": "came back to talk"}],
    )
    assert outcome.changes["trust"] == {"hilda": 3}


def test_bubbles_keep_each_speaker_and_gesture():
    scene = demo_scene()
    bubble = {"speaker": "the innkeeper", "gesture": "lowers her voice", "text": "Not here."}
    outcome = call(scene, "log_event", narration="Hilda leans in.", bubbles=[bubble])
    assert outcome.events[0].data["bubbles"] == [
        {
            "speaker": "hilda",
            "name": "Hilda Brant",
            "text": "Not here.",
            "gesture": "lowers her voice",
        }
    ]


def test_a_roll_request_sets_the_pending_check_once():
    scene = demo_scene()
    outcome = call(
        scene,
        "log_event",
        narration="The wall is slick. Roll to climb it.",
        roll={"check": "athletics", "dc": 15},
    )
    assert outcome.ok and outcome.pending is not None
    assert scene.state.pending["ren"].check == "athletics"
    assert outcome.changes["pending"]["dc"] == 15
    again = demo_scene()
    assert call(again, "request_skill_check", check="athletics", dc=15).ok
    closing = call(again, "log_event", narration="Roll.", roll={"check": "athletics", "dc": 15})
    assert closing.ok and closing.pending is None


def test_any_invalid_part_refuses_the_whole_closure():
    scene = demo_scene()
    before = snapshot(scene)
    outcome = call(
        scene,
        "log_event",
        narration="Fine.",
        memories=[{"npc": "hilda", "text": "Ren was rude.", "importance": 1}],
        trust=[{"npc": "greta", "move": "insult"}],
    )
    assert not outcome.ok and not outcome.closes_turn
    assert outcome.error.startswith("Nobody called 'greta' is here.")
    assert snapshot(scene) == before


def test_a_bubble_for_another_players_character_is_refused():
    scene = demo_scene("ada")
    outcome = call(
        scene, "log_event", narration="x", bubbles=[{"speaker": "Ren Ashby", "text": "Hi."}]
    )
    assert not outcome.ok


def test_past_four_suggestions_are_cut_rather_than_refused():
    scene = demo_scene()
    given = ["Drink", "Sing", "Wait", "Leave", "Sleep", "Dance"]
    outcome = call(scene, "log_event", narration="The fire pops.", suggestions=given)
    assert outcome.ok and outcome.result["suggestions"] == ["Drink", "Sing", "Wait", "Leave"]
