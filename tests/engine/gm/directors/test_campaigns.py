"""The three scripted campaigns of seed 003 with fixed replies (issue 12 §5, "the same
campaigns run in the test suite"): a secret vampire among humans, a noble heiress disguised as
a man, a stolen artefact after a heist. ``bench/isolation.py`` plays them through the real SDKs
against the loopback model server and prints the same counts."""

from __future__ import annotations

from functools import cache

import pytest

from tests.engine.gm.directors.campaigns import (
    NAMES,
    Played,
    detector_score,
    load_campaign,
    ooc_leaks,
    play_in_process,
    scene_leaks,
    shown_leaks,
    story_sightings,
)


@cache
def played(name: str, story_every_turn: bool = False) -> Played:
    return play_in_process(load_campaign(name), story_every_turn=story_every_turn)


@pytest.mark.parametrize("name", NAMES)
def test_no_scene_director_request_holds_a_secret_its_scene_may_not_know(name):
    assert scene_leaks(played(name)) == []


@pytest.mark.parametrize("name", NAMES)
def test_no_player_reads_a_secret_his_character_may_not_know(name):
    assert shown_leaks(played(name)) == []


@pytest.mark.parametrize("name", NAMES)
def test_the_story_director_saw_every_planted_secret(name):
    """So the zeros above are not for want of secrets to leak."""
    assert story_sightings(played(name)) == set(load_campaign(name).planted)


@pytest.mark.parametrize("name", NAMES)
def test_the_sloppy_story_directors_leaks_were_caught(name):
    """Each script has the Story Director copy a secret once into its synopsis (redacted) or
    into its line for the player (never read: the line is written from the player's view)."""
    redacted = [
        r
        for x in played(name).results
        for r in (x.changes.get("directors") or {}).get("redacted", [])
    ]
    asked = [s for s in played(name).sent if s.director == "ooc"]
    assert redacted or asked
    assert ooc_leaks(played(name)) == []


@pytest.mark.parametrize("name", NAMES)
def test_the_detector_catches_every_planted_leak_with_few_false_alarms(name):
    score = detector_score(load_campaign(name))
    assert score.missed == () and score.caught == score.leaks
    assert score.false_alarms <= 0.02 * score.clean


@pytest.mark.parametrize("name", NAMES)
def test_only_plot_turns_call_the_story_director(name):
    for result in played(name).results:
        directors = result.changes.get("directors")
        if directors is not None:
            assert directors["story"] == (directors["route"] == "plot")


@pytest.mark.parametrize("name", NAMES)
def test_skipping_the_story_director_costs_less(name):
    skip, every = played(name), played(name, story_every_turn=True)
    assert skip.calls < every.calls
    assert skip.usage.prompt_tokens < every.usage.prompt_tokens
    assert scene_leaks(every) == [] and shown_leaks(every) == []


def test_a_revealed_secret_stays_with_its_witness_across_scenes():
    vampire = played("vampire")
    memo = vampire.results[-1].state.gm.directors  # type: ignore[union-attr]
    assert [k.ref for k in memo.known["anselm"]] == ["character:mira:1"]
    assert set(memo.known) == {"anselm"}
