"""A talk turn drawn as speech bubbles (engine.gm.speech; GM-P-3..9): the bubbles and the aside
when the narration is exactly those, prose otherwise, so the narrator is never hidden."""

from __future__ import annotations

from typing import Any

from engine.gm.result import GMActionResult
from engine.gm.speech import speech_of
from engine.gm.state import GMEvent
from engine.session import SessionState


def turn(narration: str, *bubbles: dict[str, str], language: str = "en") -> GMActionResult:
    event = GMEvent(
        id=1,
        kind="master",
        actor="ren",
        location="inn",
        day=1,
        time_of_day="morning",
        text="Ren talks.",
        data={"bubbles": list(bubbles)},
    )
    return GMActionResult(
        input="hi",
        kind="master",
        narration=narration,
        state=SessionState(),
        location="inn",
        context="",
        events=[event],
        language=language,
    )


def bubble(name: str, text: str, **more: str) -> dict[str, Any]:
    return {"speaker": name.lower(), "name": name, "text": text, **more}


def test_a_silent_turn_is_its_bubbles_each_with_its_speaker_and_gesture():
    done = turn(
        "Hilda: “Ale or stew?”\nGreta: “Stew, Hilda.”",
        bubble("Hilda", "Ale or stew?", gesture="wipes a mug"),
        bubble("Greta", "Stew, Hilda."),
    )
    assert speech_of(done) == {
        "bubbles": [
            {"name": "Hilda", "text": "Ale or stew?", "gesture": "wipes a mug"},
            {"name": "Greta", "text": "Stew, Hilda.", "gesture": ""},
        ],
        "aside": "",
    }


def test_an_aside_comes_under_the_bubbles():
    done = turn("Hilda: “Safe roads.”\nShe turns back to the bar.", bubble("Hilda", "Safe roads."))
    assert speech_of(done)["aside"] == "She turns back to the bar."


def test_a_full_narration_comes_whole_before_the_bubbles_so_the_actor_reads_them_too():
    """Issue 33 §4: the first turn of a chat is narrated in full; the NPC's words, which the
    others present receive as bubbles, are not lost to the player who spoke to him."""
    done = turn("The door bangs open. Hilda looks up.", bubble("Hilda", "Shut it!"))
    assert speech_of(done) == {
        "narration": "The door bangs open. Hilda looks up.",
        "bubbles": [{"name": "Hilda", "text": "Shut it!", "gesture": ""}],
        "aside": "",
    }


def test_a_narration_that_already_quotes_the_words_stays_prose():
    done = turn("The door bangs open. “Shut it!” Hilda shouts.", bubble("Hilda", "Shut it!"))
    assert speech_of(done) == {}
    quoted = turn(
        "Hilda looks up. “Shut it!”", bubble("Hilda", "Shut it!"), bubble("Hilda", "Sit.")
    )
    assert [b["text"] for b in speech_of(quoted)["bubbles"]] == ["Sit."]
    assert speech_of(turn("You wait.")) == {}


def test_the_line_follows_the_worlds_language():
    done = turn("希尔达：“要麦酒吗？”", bubble("希尔达", "要麦酒吗？"), language="zh")
    assert speech_of(done)["bubbles"][0]["text"] == "要麦酒吗？"
