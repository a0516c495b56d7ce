"""Reading the Story Director's answer leniently and holding it to the state (seed 003's
``<synopsis>``; decision 24)."""

from __future__ import annotations

import pytest

from engine.gm.directors.records import Synopsis
from engine.gm.directors.synopsis import RevealOrder, parse_story, settle, slug

SEED_EXAMPLE = """<synopsis>
Elian regresa a la Habitación 314 con Maeve, decide dejar su habitación para explorar en solitario
<npc_list>maeve-corwin</npc_list>
<location>habitacion-314</location>
<new_scene/>
</synopsis>"""
PRESENT = [("maeve-corwin", "Maeve Corwin"), ("old-tom", "Old Tom")]


def test_it_reads_the_seed_example():
    plan = parse_story(SEED_EXAMPLE)
    assert plan.found and plan.problems == ()
    assert plan.prose.startswith("Elian regresa a la Habitación 314 con Maeve")
    assert (plan.npcs, plan.location, plan.new_scene) == (
        ("maeve-corwin",),
        "habitacion-314",
        True,
    )


def test_it_reads_the_line_for_the_player_the_notes_and_reveals():
    plan = parse_story(
        "<ooc>One line.</ooc><synopsis>A.<npc_list>old-tom, Maeve Corwin</npc_list>"
        "<location>Habitación 314</location></synopsis><notes>For later.</notes>"
        "<reveal secret='character:elian:1' to=\"Maeve Corwin\"/>"
    )
    assert (plan.ooc, plan.notes, plan.prose) == ("aside", "For later.", "A.")
    assert plan.npcs == ("old-tom", "maeve-corwin") and plan.location == "habitacion-314"
    assert plan.reveals == (RevealOrder("character:elian:1", ("maeve-corwin",)),)
    assert plan.new_scene is False


def test_of_the_line_for_the_player_only_its_kind_is_kept():
    """Issue 32 (finding 6): the Story Director's own words for the player are never kept."""
    for text, kind in (
        ("<synopsis>A.</synopsis>", ""),
        ("<ooc>pace</ooc><synopsis>A.</synopsis>", "pace"),
        ("<OOC> Recap </OOC><synopsis>A.</synopsis>", "recap"),
        ('<ooc kind="answer"/><notes>Kept.</notes><synopsis>A.</synopsis>', "answer"),
        ("<ooc/><synopsis>A.</synopsis>", "aside"),
        ("<ooc>Psst: Hale takes bribes.</ooc><synopsis>A.</synopsis>", "aside"),
    ):
        plan = parse_story(text)
        assert (plan.ooc, plan.prose) == (kind, "A."), text
        assert "Hale" not in repr(plan)
    assert parse_story('<ooc kind="answer"/><notes>Kept.</notes>').notes == "Kept."


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "I will not use tags.",
        "<synopsis>",
        "<synopsis>no end <npc_list>maeve-corwin",
        "<SYNOPSIS>Caps.<NPC_LIST>maeve-corwin</NPC_LIST><LOCATION>x</LOCATION><New-Scene/>",
        "<synopsis><npc_list></npc_list><location></location></synopsis>",
        "<think>the vampire…</think>",
        "<reveal/><reveal secret=''/><ooc><notes>",
        "<<<>>><synopsis><<npc_list>>,,,</synopsis>",
        "\x00\ufffd<synopsis>\u202eodd</synopsis>",
    ],
)
def test_malformed_answers_never_raise_and_default_safely(text):
    plan = parse_story(text)
    synopsis, _ = settle(plan, PRESENT, "habitacion-314", Synopsis(prose="Before."))
    assert synopsis.location == "habitacion-314"
    assert set(synopsis.npcs) <= {"maeve-corwin", "old-tom"}
    if not plan.found:
        assert synopsis.prose == "Before." and synopsis.npcs == ["maeve-corwin", "old-tom"]
        assert "no-synopsis" in plan.problems


def test_thinking_never_reaches_the_prose():
    plan = parse_story("<think>she is a vampire</think><synopsis>Calm.</synopsis>")
    assert plan.prose == "Calm."


def test_settle_keeps_only_npcs_present_and_the_characters_place():
    plan = parse_story(
        "<synopsis>X.<npc_list>maeve-corwin, ghost</npc_list><location>moon</location></synopsis>"
    )
    synopsis, problems = settle(plan, PRESENT, "habitacion-314", None)
    assert synopsis.npcs == ["maeve-corwin"] and synopsis.location == "habitacion-314"
    assert problems == ["npc-not-here:ghost", "location-not-here:moon"]


def test_a_missing_list_means_everyone_present():
    synopsis, _ = settle(parse_story("<synopsis>X.</synopsis>"), PRESENT, "here", None)
    assert synopsis.npcs == ["maeve-corwin", "old-tom"] and synopsis.prose == "X."


def test_without_a_synopsis_and_no_scene_before_the_prose_is_empty():
    synopsis, _ = settle(parse_story("nothing"), PRESENT, "here", None)
    assert synopsis.prose == ""


def test_slugs_are_lowercase_hyphenated_without_accents():
    assert slug("Habitación 314") == "habitacion-314"
    assert slug("  Maeve_Corwin ") == "maeve-corwin"
