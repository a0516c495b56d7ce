"""How much the narrator says, enforced without a model call (seed 001 "NPC que conversan";
GM-P-4 silence for plain talk, GM-P-5 an aside of at most 15 words, GM-P-6 full narration,
GM-P-8 no sentence said again in the last turns; engine.gm.narrator), with scripted model
turns."""

from __future__ import annotations

from typing import Any

from engine.gm.narrator import ASIDE_WORDS, RECENT, cap_aside, fresh_prose
from engine.gm.state import GMState
from engine.session import ToolCall
from tests.engine.gm.party_worlds import Table, party_world
from tests.engine.gm.test_talk_flow import Scripted


def closing(narration: str, bubble: str | None = None) -> list[ToolCall]:
    arguments: dict[str, Any] = {"narration": narration}
    if bubble is not None:
        arguments["bubbles"] = [{"speaker": "hilda", "text": bubble}]
    return [ToolCall("c1", "log_event", arguments)]


def table_with(*turns: list[ToolCall]) -> Table:
    return Table(party_world(), provider=Scripted(*turns))


# --- GM-P-8: sentences already said are dropped ------------------------------------------------


def test_a_sentence_the_narrator_said_last_turn_is_dropped():
    table = table_with(
        closing("You hum a tune. The common room waits."),
        closing("You hum louder. The common room waits."),
    )
    table.act("ren", "I hum an old song")
    result = table.act("ren", "I hum a little louder")
    assert result.narration == "You hum louder."
    assert result.delivered_to["ren"] == "You hum louder."


def test_the_match_ignores_case_and_punctuation():
    state = GMState(narrated={"ren": ["The common room waits."]})
    assert fresh_prose(state, "ren", "You sit.  the Common Room waits!") == "You sit."


def test_only_the_last_turns_count():
    narrations = ["The fire crackles.", *(f"Turn {n} passes." for n in range(RECENT))]
    state = GMState(narrated={"ren": narrations[-RECENT:]})
    assert fresh_prose(state, "ren", "You sit. The fire crackles.") == "You sit. The fire crackles."
    state = GMState(narrated={"ren": narrations[:RECENT]})
    assert fresh_prose(state, "ren", "You sit. The fire crackles.") == "You sit."


def test_another_characters_narration_does_not_count():
    state = GMState(narrated={"ada": ["The fire crackles."]})
    assert fresh_prose(state, "ren", "The fire crackles.") == "The fire crackles."


def test_quoted_words_and_the_last_sentence_always_stay():
    state = GMState(narrated={"ren": ['Hilda says "Enough." The fire crackles.']})
    assert fresh_prose(state, "ren", 'Hilda says "Enough."') == 'Hilda says "Enough."'
    assert fresh_prose(state, "ren", "The fire crackles.") == "The fire crackles."


def test_the_narration_is_trimmed_and_keeps_its_paragraphs():
    state = GMState()
    assert fresh_prose(state, "ren", "  You sit.\n\nThe fire crackles.  ") == (
        "You sit.\nThe fire crackles."
    )


# --- GM-P-4..6: silence, an aside, or full narration in a talk turn ---------------------------


def talk(*turns: list[ToolCall]) -> list[Any]:
    table = table_with(closing("Hilda looks up from the mug.", "Good to see you, Ren."), *turns)
    texts = ["Hello, Hilda.", "What news, Hilda?", "Goodbye, Hilda."]
    return [table.act("ren", text) for text in texts[: len(turns) + 1]]


def test_the_chat_beginning_is_narrated_in_full():
    [first] = talk()
    assert first.narration == "Hilda looks up from the mug."
    assert first.delivered_to["ren"] == first.narration


def test_plain_talk_shows_only_the_bubbles():
    _, plain = talk(closing("Hilda wipes the same mug again, slowly.", "Quiet, mostly."))
    assert plain.narration == "Hilda Brant: “Quiet, mostly.”"
    assert plain.delivered_to["ren"] == plain.narration
    assert plain.delivered_to["ada"].endswith("Hilda Brant: “Quiet, mostly.”")


def test_a_farewell_gets_an_aside_of_at_most_fifteen_words():
    long = (
        "Hilda nods slowly, sets down the mug she has been wiping for an hour and "
        "waves you off toward the door. The fire crackles."
    )
    *_, farewell = talk(
        closing("Hilda wipes a mug.", "Quiet, mostly."), closing(long, "Safe roads.")
    )
    bubble, aside = farewell.narration.split("\n")
    assert bubble == "Hilda Brant: “Safe roads.”"
    assert aside.startswith("Hilda nods slowly") and aside.endswith("…")
    assert len(aside.split()) == ASIDE_WORDS


def test_an_aside_short_enough_is_kept_whole():
    assert cap_aside("Hilda nods. The fire crackles.", "en") == "Hilda nods."
    assert cap_aside("希尔达点了点头。炉火噼啪作响。", "zh") == "希尔达点了点头。"
    assert len(cap_aside("希" * 80, "zh")) == 30


def test_a_talk_turn_without_bubbles_keeps_the_narration():
    _, plain = talk(closing("Hilda shrugs and says nothing."))
    assert plain.narration == "Hilda shrugs and says nothing."
    assert plain.delivered_to["ren"] == plain.narration
